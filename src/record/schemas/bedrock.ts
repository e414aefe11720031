/**
 * Amazon Bedrock evaluation job datasets. Model evaluation: `prompt`, `referenceResponse`,
 * `category`, and with bring-your-own-inference `modelResponses: [{response, modelIdentifier}]`
 * (one response a prompt). RAG evaluation: `conversationTurns: [{prompt: {content: [{text}]},
 * referenceResponses: [{content: [{text}]}], output: {text, retrievedPassages: {retrievalResults:
 * [{content: {text}, location, metadata}]}, citations, ...}}]`: the last turn is the request, its
 * reference, answer and retrieved passages; earlier turns are the history. The turns stay whole in
 * `request_raw` (citations, model and knowledge-base identifiers).
 */
import { type Adapter, type Draft, type Names } from '../readers';
import type { ChatMessage, RetrievedChunk } from '../schema';
import { isObject, structured, text, typeName, type Row, type RowReader } from '../values';

/** The text of a Bedrock content holder: `{content: [{text}, ...]}` or `{text}`, parts joined. */
function contentText(r: RowReader, v: unknown, path: string): string | undefined {
	if (v === undefined || v === null) return undefined;
	if (typeof v === 'string') return v;
	if (!isObject(v)) return r.fail(path, `expected an object with content, got ${typeName(v)}`);
	if (typeof v.text === 'string') return v.text;
	if (!Array.isArray(v.content)) return r.fail(`${path}.content`, 'expected a list of {text}');
	const parts: string[] = [];
	let ok = true;
	v.content.forEach((p, i) => {
		if (isObject(p) && typeof p.text === 'string') parts.push(p.text);
		else {
			ok = false;
			r.fail(
				`${path}.content[${i}].text`,
				`expected string, got ${typeName(isObject(p) ? p.text : p)}`,
			);
		}
	});
	return ok ? parts.join('\n') : undefined;
}

/** Where a retrieved passage came from (S3, web, Confluence... `location.<kind>Location.uri|url`). */
function locationOf(loc: unknown): string | undefined {
	if (!isObject(loc)) return undefined;
	for (const v of Object.values(loc)) {
		if (isObject(v)) {
			const u = v.uri ?? v.url;
			if (typeof u === 'string' && u !== '') return u;
		}
	}
	return undefined;
}

/** `retrievedPassages.retrievalResults[]`: each passage's text and, when given, its location. */
function passages(r: RowReader, v: unknown, path: string): RetrievedChunk[] | undefined {
	if (v === undefined || v === null) return undefined;
	const list = isObject(v) ? v.retrievalResults : undefined;
	if (!Array.isArray(list))
		return r.fail(`${path}.retrievalResults`, 'expected a list of passages');
	const out: RetrievedChunk[] = [];
	let ok = true;
	list.forEach((p, i) => {
		const at = `${path}.retrievalResults[${i}]`;
		const content = isObject(p) ? contentText(r, p.content, `${at}.content`) : undefined;
		if (content === undefined) {
			ok = false;
			if (!isObject(p)) r.fail(at, `expected a passage object, got ${typeName(p)}`);
			return;
		}
		const chunk: RetrievedChunk = { content };
		const uri = locationOf((p as Row).location);
		if (uri !== undefined) chunk.doc_uri = uri;
		out.push(chunk);
	});
	return ok ? out : undefined;
}

function readTurns(r: RowReader, d: Draft): void {
	const turns = structured(r, r.take('conversationTurns'), 'conversationTurns');
	if (turns === undefined) return;
	if (!Array.isArray(turns) || turns.length === 0) {
		r.fail('conversationTurns', `expected a non-empty list of turns, got ${typeName(turns)}`);
		return;
	}
	const history: ChatMessage[] = [];
	const last = turns.length - 1;
	turns.forEach((t, i) => {
		const at = `conversationTurns[${i}]`;
		if (!isObject(t)) {
			r.fail(at, `expected a turn object, got ${typeName(t)}`);
			return;
		}
		const prompt = contentText(r, t.prompt, `${at}.prompt`);
		const output = isObject(t.output) ? t.output : undefined;
		const answer = output ? contentText(r, output, `${at}.output`) : undefined;
		if (i < last) {
			if (prompt !== undefined) history.push({ role: 'user', content: prompt });
			if (answer !== undefined) history.push({ role: 'assistant', content: answer });
			return;
		}
		if (prompt === undefined) {
			r.fail(`${at}.prompt`, 'required: the question of the turn');
			return;
		}
		d.request = prompt;
		if (answer !== undefined) d.response = answer;
		const refs = t.referenceResponses;
		if (Array.isArray(refs) && refs.length > 0) {
			d.expected_response = contentText(r, refs[0], `${at}.referenceResponses[0]`);
			if (refs.length > 1)
				r.choose(
					'conversationTurns',
					`the last turn lists ${refs.length} reference responses; expected_response is the first, all are in request_raw`,
				);
		}
		if (output?.retrievedPassages !== undefined)
			d.retrieved_context = passages(r, output.retrievedPassages, `${at}.output.retrievedPassages`);
	});
	if (history.length > 0) d.history = history;
	d.request_raw = turns;
}

function read(r: RowReader, d: Draft): Names {
	if (r.has('conversationTurns')) {
		readTurns(r, d);
		return {
			request: 'conversationTurns',
			response: 'conversationTurns',
			expectedResponse: 'conversationTurns',
		};
	}
	d.request = text(r, r.take('prompt'), 'prompt');
	d.expected_response = text(r, r.take('referenceResponse'), 'referenceResponse');
	const responses = structured(r, r.take('modelResponses'), 'modelResponses');
	if (responses !== undefined) {
		if (!Array.isArray(responses) || responses.length === 0) {
			r.fail(
				'modelResponses',
				`expected a list of {response, modelIdentifier}, got ${typeName(responses)}`,
			);
		} else if (responses.length > 1) {
			// Bedrock takes one response a prompt; which one to score is the user's call.
			r.fail(
				'modelResponses',
				`holds ${responses.length} responses; map the one to score (modelResponses.0.response: response)`,
			);
		} else {
			const one = responses[0];
			d.response = isObject(one)
				? text(r, one.response, 'modelResponses[0].response')
				: r.fail('modelResponses[0]', `expected {response, modelIdentifier}, got ${typeName(one)}`);
			if (isObject(one)) r.release('modelResponses', 'also kept whole: it names the model');
		}
	}
	return { request: 'prompt', response: 'modelResponses', expectedResponse: 'referenceResponse' };
}

export const bedrock: Adapter = {
	columns: {
		conversationTurns: [
			'request',
			'request_raw',
			'history',
			'response',
			'expected_response',
			'retrieved_context',
		],
		prompt: ['request'],
		referenceResponse: ['expected_response'],
		modelResponses: ['response'],
	},
	read,
};
