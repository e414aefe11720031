import { evaluateMetric, metricSignature, withDefaults } from '../../../src/core/evaluate';
import { coerceInput, InputError, readInputs } from '../../../src/core/inputs';
import type { MetricDecl } from '../../../src/core/types';

/** A small metric to exercise the generic wrapper: share of response words found in the truth. */
const overlap: MetricDecl = {
	id: 'word_overlap',
	version: '1',
	displayName: 'Word Overlap',
	description: 'test metric',
	reference: 'test',
	inputs: [
		{
			name: 'response',
			displayName: 'Response',
			field: 'response',
			kind: 'text',
			required: true,
			description: '',
		},
		{
			name: 'groundTruth',
			displayName: 'Truth',
			field: 'expected_response',
			kind: 'text',
			required: true,
			description: '',
		},
	],
	params: [
		{
			name: 'lowercase',
			displayName: 'Lowercase',
			type: 'boolean',
			default: true,
			description: '',
		},
	],
	scale: { kind: 'unit', min: 0, max: 1 },
	threshold: { default: 0.5, direction: 'higher' },
	signatureParts: 'tok:space',
	compute({ response, groundTruth }, { lowercase }) {
		const norm = (s: string) => (lowercase ? s.toLowerCase() : s).split(/\s+/).filter(Boolean);
		const r = norm(response as string);
		const truth = new Set(norm(groundTruth as string));
		if (r.length === 0) return { value: 0 / 0 };
		return { value: r.filter((w) => truth.has(w)).length / r.length };
	},
};

describe('evaluateMetric', () => {
	it('scores, applies the threshold and signs the score with its parameters', () => {
		const s = evaluateMetric(overlap, { response: 'The cat sat', groundTruth: 'the cat' });
		expect(s.status).toBe('ok');
		expect(s.value).toBeCloseTo(2 / 3, 12);
		expect(s.pass).toBe(true);
		expect(s.threshold).toBe(0.5);
		expect(s.signature).toBe('metric:word_overlap@1|tok:space|lowercase:true');
		const strict = evaluateMetric(
			overlap,
			{ response: 'The cat sat', groundTruth: 'the cat' },
			{ threshold: 0.9, params: { lowercase: false } },
		);
		expect(strict.value).toBeCloseTo(1 / 3, 12);
		expect(strict.pass).toBe(false);
		expect(strict.signature).toContain('lowercase:false');
	});

	it('marks missing inputs not applicable and names the field, without a value', () => {
		const s = evaluateMetric(overlap, { response: 'x', groundTruth: undefined });
		expect(s).toMatchObject({
			status: 'not_applicable',
			value: null,
			pass: null,
			reason: 'missing expected_response',
		});
		const both = evaluateMetric(overlap, { response: null });
		// A missing response says what to connect (a golden set reaches the metric before the app).
		expect(both.reason).toBe(
			'missing response, expected_response: the row has no response yet; connect the node that calls your app (for example an HTTP Request) before this one, or map the Response field',
		);
	});

	it('turns wrong types into a per-row error naming the field', () => {
		const s = evaluateMetric(overlap, { response: 42, groundTruth: 'x' });
		expect(s).toMatchObject({ status: 'error', value: null, pass: null });
		expect(s.error).toBe('response: expected text, got number');
	});

	it('never lets NaN out: a non-finite value is an error', () => {
		const s = evaluateMetric(overlap, { response: '   ', groundTruth: 'x' });
		expect(s.status).toBe('error');
		expect(s.value).toBeNull();
		expect(s.error).toBe('word_overlap produced a non-finite value; no score recorded');
		expect(JSON.stringify(s)).not.toContain('NaN');
	});

	it('fills declared defaults', () => {
		expect(withDefaults(overlap, {})).toEqual({ lowercase: true });
		expect(metricSignature(overlap, { lowercase: true })).toContain('lowercase:true');
	});
});

describe('coerceInput', () => {
	it('reads contexts from strings, objects, JSON strings and names bad entries', () => {
		expect(coerceInput({ kind: 'contexts', field: 'retrieved_context' }, 'one doc')).toEqual([
			{ content: 'one doc' },
		]);
		expect(
			coerceInput(
				{ kind: 'contexts', field: 'retrieved_context' },
				'[{"doc_uri":"a","content":"x"},"y"]',
			),
		).toEqual([{ doc_uri: 'a', content: 'x' }, { content: 'y' }]);
		expect(() =>
			coerceInput({ kind: 'contexts', field: 'retrieved_context' }, [{ doc_uri: 'a', content: 3 }]),
		).toThrow('retrieved_context[0].content: expected string, got number');
		expect(() => coerceInput({ kind: 'messages', field: 'history' }, [{ role: 'user' }])).toThrow(
			InputError,
		);
	});

	it('separates missing from wrong', () => {
		const decls = overlap.inputs;
		expect(readInputs(decls, { response: 'a', groundTruth: 'b' })).toEqual({
			ok: true,
			values: { response: 'a', groundTruth: 'b' },
		});
		expect(readInputs(decls, { response: 'a' })).toEqual({
			ok: false,
			missing: ['expected_response'],
			reason: 'missing expected_response',
		});
		const wrong = readInputs(decls, { response: ['a'], groundTruth: 'b' });
		expect(wrong.ok).toBe(false);
	});
});
