/**
 * DeepEval test cases and goldens (`input`, `actual_output`, `expected_output`, `retrieval_context`,
 * `context`, `tools_called`, `expected_tools`), their camelCase twins as a test-run export writes
 * them (`actualOutput`, `expectedOutput`, `retrievalContext`, `toolsCalled`), and conversational
 * test cases and goldens (`turns`: a list, JSON text of a list, or DeepEval's own `role: content
 * [retrieval_context: a≠b]|...` text; a turn's `retrieval_context` may be null).
 */
import { conversation, pick, toolCalls, type Adapter, type Draft, type Names } from '../readers';
import {
	isBad,
	isObject,
	structured,
	text,
	textList,
	unwrapHolder,
	type Row,
	type RowReader,
} from '../values';

/**
 * DeepEval's CSV form of turns (`format_turns`): turns joined with `|`, each `role: content`
 * followed by ` [retrieval_context: a≠b]` when the turn has one. Split as DeepEval's own
 * `parse_turns` does.
 */
function parseTurnText(v: string): Row[] | undefined {
	const out: Row[] = [];
	for (const part of v.split('|')) {
		const at = part.indexOf(': ');
		if (at < 0) return undefined;
		const role = part.slice(0, at).trim();
		let content = part.slice(at + 2);
		const turn: Row = { role };
		const m = /\s*\[retrieval_context: ([\s\S]*)\]\s*$/.exec(content);
		if (m) {
			turn.retrieval_context = m[1].split('≠');
			content = content.slice(0, m.index);
		}
		turn.content = content;
		out.push(turn);
	}
	return out.length > 0 ? out : undefined;
}

function read(r: RowReader, d: Draft): Names {
	const names: Names = {
		request: 'input',
		response: 'actual_output',
		expectedResponse: 'expected_output',
	};
	if (r.has('turns') && !r.has('input')) {
		// A ConversationalTestCase or ConversationalGolden: each assistant turn may carry its own
		// retrieval_context; a golden ends on the user's turn and has no response yet.
		const raw = r.take('turns');
		let v = structured(r, raw, 'turns');
		if (typeof v === 'string') v = parseTurnText(v) ?? v;
		const ok =
			v !== undefined &&
			!isBad(v) &&
			conversation(r, v, 'turns', d, (t, at) => {
				const key = t.retrieval_context !== undefined ? 'retrieval_context' : 'retrievalContext';
				const list = textList(r, t[key], `${at}.${key}`);
				return list?.map((content) => ({ content }));
			});
		if (ok) d.request_raw = { turns: v };
		names.request = names.response = 'turns';
	} else {
		d.request = text(r, r.take('input'), 'input');
		const [outKey, output] = pick(r, ['actual_output', 'actualOutput']);
		names.response = outKey;
		const out = text(r, output, outKey);
		if (out !== undefined) d.response = out;
		const [ctxKey, ctx] = pick(r, ['retrieval_context', 'retrievalContext']);
		d.retrieved_context = textList(r, unwrapHolder(r, ctx, ctxKey), ctxKey)?.map((content) => ({
			content,
		}));
	}
	const [expKey, exp] = pick(r, ['expected_output', 'expectedOutput']);
	names.expectedResponse = expKey;
	d.expected_response = text(r, exp, expKey);
	// DeepEval `context` is ideal (ground-truth) context without document ids.
	d.expected_retrieved_context = textList(r, r.take('context'), 'context')?.map((content) => ({
		content,
	}));
	const [calledKey, calledRaw] = pick(r, ['tools_called', 'toolsCalled']);
	const called = toolCalls(r, calledRaw, calledKey);
	if (called) d.tool_calls = called;
	const [expToolsKey, expTools] = pick(r, ['expected_tools', 'expectedTools']);
	d.expected_tool_calls = toolCalls(r, expTools, expToolsKey);
	// A test run's `additionalMetadata` is DeepEval's `additional_metadata` under its camel name.
	if (isObject(r.peek('additionalMetadata')) && !r.has('additional_metadata')) {
		d.metadata = { ...d.metadata, additional_metadata: r.take('additionalMetadata', 'metadata') };
	}
	return names;
}

const TRANSCRIPT = ['request', 'history', 'response', 'retrieved_context', 'tool_calls'];

export const deepeval: Adapter = {
	columns: {
		turns: TRANSCRIPT,
		input: ['request'],
		actual_output: ['response'],
		actualOutput: ['response'],
		retrieval_context: ['retrieved_context'],
		retrievalContext: ['retrieved_context'],
		expected_output: ['expected_response'],
		expectedOutput: ['expected_response'],
		context: ['expected_retrieved_context'],
		tools_called: ['tool_calls'],
		toolsCalled: ['tool_calls'],
		expected_tools: ['expected_tool_calls'],
		expectedTools: ['expected_tool_calls'],
	},
	read,
};
