/**
 * Ragas samples: single-turn (`user_input`, `response`, `retrieved_contexts`, `reference`, ids),
 * the legacy 0.1 names (`question`, `answer`, `contexts`, `ground_truth`), multi-turn samples whose
 * `user_input` is the transcript (human / ai / tool messages, AI tool calls with `args`), and the
 * tool-call metric's `reference_tool_calls`.
 */
import {
	conversation,
	idList,
	pick,
	toolCalls,
	zipIds,
	type Adapter,
	type Draft,
	type Names,
} from '../readers';
import { asRetrieved, structured, text, textList, unwrapHolder, type RowReader } from '../values';

function read(r: RowReader, d: Draft): Names {
	const names: Names = {
		request: 'user_input',
		response: 'response',
		expectedResponse: 'reference',
	};
	const [inKey, input] = pick(r, ['user_input', 'question']);
	const inputV = structured(r, input, inKey, true);
	if (Array.isArray(inputV)) {
		// A Ragas MultiTurnSample: user_input is the transcript itself.
		if (conversation(r, inputV, inKey, d)) d.request_raw = { [inKey]: inputV };
		names.request = names.response = inKey;
	} else {
		d.request = text(r, inputV, inKey);
		r.feeds(inKey, 'request');
		names.request = inKey;
	}
	const [outKey, output] = pick(r, ['response', 'answer']);
	const out = text(r, output, outKey);
	// An explicit response column wins over the transcript's last assistant turn.
	if (out !== undefined) d.response = out;
	if (!Array.isArray(inputV)) names.response = outKey;

	const [ctxKey, ctx] = pick(r, ['retrieved_contexts', 'contexts']);
	const texts = textList(r, unwrapHolder(r, ctx, ctxKey), ctxKey);
	const ids = r.has('retrieved_context_ids')
		? idList(r, r.take('retrieved_context_ids'), 'retrieved_context_ids')
		: undefined;
	const retrieved =
		ids && !texts ? undefined : zipIds(r, texts, ids, 'retrieved_context_ids', ctxKey);
	// Id-only retrieval has no text for judges; the ids stay in metadata for id-based metrics.
	if (ids && !texts) {
		r.release('retrieved_context_ids', 'ids without retrieved_contexts: no text for judges');
	}
	d.retrieved_context = retrieved ? asRetrieved(retrieved) : undefined;

	const [refKey, ref] = pick(r, ['reference', 'ground_truth']);
	d.expected_response = text(r, ref, refKey);
	names.expectedResponse = refKey;
	const refTexts = textList(
		r,
		unwrapHolder(r, r.take('reference_contexts'), 'reference_contexts'),
		'reference_contexts',
	);
	const refIds = idList(r, r.take('reference_context_ids'), 'reference_context_ids');
	d.expected_retrieved_context = zipIds(
		r,
		refTexts,
		refIds,
		'reference_context_ids',
		'reference_contexts',
	);
	// The tool-call metrics' reference: `[{name, args}]`, args kept as the arguments.
	const refCalls = toolCalls(r, r.take('reference_tool_calls'), 'reference_tool_calls');
	if (refCalls) d.expected_tool_calls = refCalls;
	return names;
}

export const ragas: Adapter = {
	columns: {
		user_input: ['request', 'history', 'response', 'tool_calls'],
		question: ['request'],
		response: ['response'],
		answer: ['response'],
		retrieved_contexts: ['retrieved_context'],
		contexts: ['retrieved_context'],
		retrieved_context_ids: ['retrieved_context'],
		reference: ['expected_response'],
		ground_truth: ['expected_response'],
		reference_contexts: ['expected_retrieved_context'],
		reference_context_ids: ['expected_retrieved_context'],
		reference_tool_calls: ['expected_tool_calls'],
	},
	read,
};
