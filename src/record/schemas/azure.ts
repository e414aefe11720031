/**
 * Azure AI Evaluation rows (seed 000) and the legacy promptflow / Azure QA names they grew from:
 * `query` or `question`, `response` or `answer`, `context`, `ground_truth` (also `groundtruth`,
 * `truth`, `gt`), a `conversation` or `messages` transcript, agent data (query and response as
 * message lists), and promptflow `chat_history` of `{inputs, outputs}` turn pairs.
 */
import { historyOf } from '../fields';
import {
	azureCitations,
	conversation,
	keepIfLossy,
	messageResponse,
	readResponse,
	type Adapter,
	type Draft,
	type Names,
} from '../readers';
import {
	asRetrieved,
	chunks,
	isBad,
	isObject,
	structured,
	text,
	typeName,
	type Row,
	type RowReader,
} from '../values';

const TRANSCRIPT = ['request', 'history', 'response', 'retrieved_context', 'tool_calls'];
const REQUEST = ['query', 'question', 'chat_input'];
const RESPONSE = ['response', 'answer', 'prediction'];
const TRUTH = ['ground_truth', 'groundtruth', 'truth', 'gt'];

/** The first present key among `keys` (the current Azure name first, legacy names after). */
function first(r: RowReader, keys: string[]): string {
	return keys.find((k) => r.has(k)) ?? keys[0];
}

function azureConversation(r: RowReader, d: Draft): void {
	const v = structured(r, r.take('conversation'), 'conversation');
	if (v === undefined || isBad(v)) return;
	if (!isObject(v)) {
		r.fail('conversation', `expected an object with messages, got ${typeName(v)}`);
		return;
	}
	if (v.messages === undefined || v.messages === null) {
		r.fail('conversation.messages', 'required');
		return;
	}
	const ok = conversation(r, v.messages, 'conversation.messages', d, (t, at) =>
		azureCitations(r, t, at),
	);
	if (!ok) return;
	d.request_raw = { conversation: v };
	// The conversation's own keys besides its messages (a conversation-level `context`) are
	// metadata; an empty string says nothing and is left out.
	const meta: Row = {};
	for (const [k, x] of Object.entries(v)) {
		if (k !== 'messages' && x !== undefined && x !== null && x !== '') meta[k] = x;
	}
	if (Object.keys(meta).length > 0) d.metadata = meta;
}

function read(r: RowReader, d: Draft): Names {
	const names: Names = { request: 'query', response: 'response', expectedResponse: 'ground_truth' };
	if (r.has('conversation')) {
		azureConversation(r, d);
		names.request = names.response = 'conversation';
	} else if (r.has('messages')) {
		const v = structured(r, r.take('messages'), 'messages');
		if (v !== undefined && !isBad(v)) {
			if (conversation(r, v, 'messages', d, (t, at) => azureCitations(r, t, at))) {
				d.request_raw = { messages: v };
			}
		}
		names.request = names.response = 'messages';
	} else {
		const qKey = first(r, REQUEST);
		names.request = qKey;
		const q = structured(r, r.take(qKey), qKey, true);
		if (Array.isArray(q)) {
			// Agent data: the query is the conversation so far (system, user, tool turns).
			if (conversation(r, q, qKey, d)) d.request_raw = { [qKey]: q };
		} else {
			d.request = text(r, q, qKey);
			r.feeds(qKey, 'request');
		}
		const rKey = first(r, RESPONSE);
		names.response = rKey;
		const resp = structured(r, r.take(rKey), rKey, true);
		if (Array.isArray(resp)) messageResponse(r, resp, rKey, d);
		else {
			readResponse(r, resp, rKey, d);
			r.feeds(rKey, 'response');
		}
		const ctx = r.take('context');
		if (ctx !== '') {
			const res = chunks(
				r,
				ctx,
				'context',
				{ uri: ['id', 'doc_uri'], content: ['content'] },
				'content',
				false,
			);
			d.retrieved_context = keepIfLossy(r, 'context', res, asRetrieved);
		}
	}
	if (r.has('chat_history')) {
		// promptflow chat flows: the turns before this question, as {inputs, outputs} pairs.
		const hist = historyOf(r, r.take('chat_history'), 'chat_history');
		if (hist !== undefined && hist.length > 0) {
			if (d.history) r.release('chat_history', 'the transcript already holds the history');
			else d.history = hist;
		}
	}
	const tKey = first(r, TRUTH);
	names.expectedResponse = tKey;
	d.expected_response = text(r, r.take(tKey), tKey);
	return names;
}

export const azure: Adapter = {
	columns: {
		conversation: TRANSCRIPT,
		messages: TRANSCRIPT,
		query: ['request', 'history', 'tool_calls'],
		question: ['request'],
		chat_input: ['request'],
		response: ['response', 'tool_calls'],
		answer: ['response'],
		prediction: ['response'],
		context: ['retrieved_context'],
		chat_history: ['history'],
		ground_truth: ['expected_response'],
		groundtruth: ['expected_response'],
		truth: ['expected_response'],
		gt: ['expected_response'],
	},
	read,
};
