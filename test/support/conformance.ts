/**
 * Loads the metric conformance vectors kept in test/fixtures/conformance (see its README).
 */
import * as fs from 'fs';
import * as path from 'path';

/** One pair of metric-conformance.jsonl with the reference values we must reproduce. */
export interface ConformanceRow {
	id: string;
	category: string;
	response: string;
	ground_truth: string;
	expected: {
		f1_score: number;
		bleu_score: number;
		gleu_score: number;
		meteor_score: number;
		sacrebleu_sentence: {
			score: number;
			counts: number[];
			totals: number[];
			precisions: number[];
			bp: number;
			sys_len: number;
			ref_len: number;
		};
	} & Record<string, { precision: number; recall: number; fmeasure: number }>;
}

/** Tokens each reference metric saw for one pair. */
export interface TokenRow {
	id: string;
	tokens: Record<string, { response: string[]; ground_truth: string[] }>;
}

/** Directory of the conformance files, inside the repository. */
export function conformanceDir(): string {
	return path.resolve(__dirname, '../fixtures/conformance');
}

function readJsonl<T>(file: string): T[] {
	return fs
		.readFileSync(path.join(conformanceDir(), file), 'utf8')
		.split('\n')
		.filter((l) => l.trim() !== '')
		.map((l) => JSON.parse(l) as T);
}

/** All public conformance rows. */
export function loadRows(): ConformanceRow[] {
	return readJsonl<ConformanceRow>('metric-conformance.jsonl');
}

/** All token rows. */
export function loadTokenRows(): TokenRow[] {
	return readJsonl<TokenRow>('metric-conformance-tokens.jsonl');
}

/** Largest tolerated difference from a reference value. */
export const TOL = 1e-9;

/** Describes a mismatch so a failing test names the row and both values. */
export function mismatch(id: string, what: string, got: number, expected: number): string | null {
	return Math.abs(got - expected) <= TOL && Number.isFinite(got)
		? null
		: `${id} ${what}: got ${got}, expected ${expected}`;
}
