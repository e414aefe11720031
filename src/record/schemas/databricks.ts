/**
 * Databricks Agent Evaluation rows (seed 002), the canonical names themselves, and Spring AI's
 * `EvaluationRequest` (seed 003: `userText`, `dataList`, `responseContent`).
 */
import {
	DBX_CHUNK,
	keepIfLossy,
	readRequest,
	readResponse,
	type Adapter,
	type Draft,
	type Names,
} from '../readers';
import { asRetrieved, chunks, messages, text, type RowReader } from '../values';

function readDatabricks(r: RowReader, d: Draft): Names {
	readRequest(r, r.take('request'), 'request', d);
	readResponse(r, r.take('response'), 'response', d);
	d.expected_response = text(r, r.take('expected_response'), 'expected_response');
	const history = r.take('history');
	if (history !== undefined) {
		if (d.history) r.fail('history', 'given both here and inside request');
		else d.history = messages(r, history, 'history');
	}
	// Seed 002: `doc_uri` names the chunk's document and `content` is optional. A text-only chunk
	// still loads (judges can read it); see docs/decisions.md.
	const ret = chunks(r, r.take('retrieved_context'), 'retrieved_context', DBX_CHUNK, 'either');
	d.retrieved_context = keepIfLossy(r, 'retrieved_context', ret, asRetrieved);
	const exp = chunks(
		r,
		r.take('expected_retrieved_context'),
		'expected_retrieved_context',
		DBX_CHUNK,
		'doc_uri',
	);
	d.expected_retrieved_context = keepIfLossy(r, 'expected_retrieved_context', exp, (x) => x);
	return { request: 'request', response: 'response', expectedResponse: 'expected_response' };
}

export const databricks: Adapter = {
	columns: {
		request: ['request', 'request_raw', 'history'],
		response: ['response'],
		expected_response: ['expected_response'],
		history: ['history'],
		retrieved_context: ['retrieved_context'],
		expected_retrieved_context: ['expected_retrieved_context'],
	},
	read: readDatabricks,
};

function readSpringAi(r: RowReader, d: Draft): Names {
	d.request = text(r, r.take('userText'), 'userText');
	// Spring AI Documents carry `text` (1.0) or `content` (earlier), an `id` and metadata.
	const res = chunks(
		r,
		r.take('dataList'),
		'dataList',
		{ uri: ['id'], content: ['text', 'content'] },
		'content',
	);
	d.retrieved_context = keepIfLossy(r, 'dataList', res, asRetrieved);
	d.response = text(r, r.take('responseContent'), 'responseContent');
	return {
		request: 'userText',
		response: 'responseContent',
		expectedResponse: 'expected_response',
	};
}

export const springAi: Adapter = {
	columns: {
		userText: ['request'],
		dataList: ['retrieved_context'],
		responseContent: ['response'],
	},
	read: readSpringAi,
};
