/**
 * Rows the engine tests of both attack nodes (Attack Injector, Attack Simulator) attack: a
 * question with two retrieved documents, a follow-up whose history has a system, user and
 * assistant turn, and a row whose question is blank (no user turn to attack).
 */
import type { IDataObject } from 'n8n-workflow';

export const PASSWORD_ROW: IDataObject = {
	request_id: 'q1',
	request: 'How do I reset my password?',
	response: 'Use the reset link.',
	retrieved_context: [
		{ doc_uri: 'kb/reset.md', content: 'Passwords are reset from the login page.' },
		{ doc_uri: 'kb/sso.md', content: 'SSO users reset through their provider.' },
	],
};

export const MOBILE_ROW: IDataObject = {
	request_id: 'q2',
	request: 'And on mobile?',
	history: [
		{ role: 'system', content: 'You are a support bot.' },
		{ role: 'user', content: 'I cannot log in.' },
		{ role: 'assistant', content: 'Try resetting your password.' },
	],
	retrieved_context: [{ doc_uri: 'kb/mobile.md', content: 'The app has a reset button.' }],
};

/** A row with a blank question, under `requestId`. */
export function blankRow(requestId: string): IDataObject {
	return { request_id: requestId, request: '   ', response: 'blank question' };
}
