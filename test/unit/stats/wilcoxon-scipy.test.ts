import { readFileSync } from 'fs';
import { join } from 'path';
import {
	wilcoxonSignedRank,
	type Alternative,
	type WilcoxonZeroMethod,
} from '../../../src/stats/tests';

// Reference values from scipy (version recorded in the fixture), written by
// test/fixtures/scipy/gen_wilcoxon.py; see there for how scipy >= 1.15 semantics are reproduced.
interface Case {
	name: string;
	d: number[];
	zeroMethod: WilcoxonZeroMethod;
	alternative: Alternative;
	correction: boolean;
	method: 'exact' | 'permutation' | 'asymptotic';
	statistic: number;
	pValue: number;
	pScipyInstalledAuto: number | null;
}

const fixture = JSON.parse(
	readFileSync(join(__dirname, '../../fixtures/scipy/wilcoxon.json'), 'utf8'),
) as { scipy: string; cases: Case[] };

const TEST_NAME = {
	exact: 'wilcoxon-exact',
	permutation: 'wilcoxon-permutation',
	asymptotic: 'wilcoxon-normal',
} as const;

const label = (c: Case): string =>
	`${c.name} [${c.zeroMethod}, ${c.alternative}${c.correction ? ', correction' : ''}]`;

describe(`Wilcoxon signed-rank against scipy ${fixture.scipy} reference values`, () => {
	it('the fixture covers every method, zero method and alternative, n = 1..15 and n around 50', () => {
		const cases = fixture.cases;
		expect(cases.length).toBeGreaterThan(500);
		for (const m of ['exact', 'permutation', 'asymptotic']) {
			expect(cases.some((c) => c.method === m)).toBe(true);
		}
		for (const zm of ['wilcox', 'pratt', 'zsplit']) {
			for (const alt of ['two-sided', 'less', 'greater']) {
				expect(cases.some((c) => c.zeroMethod === zm && c.alternative === alt)).toBe(true);
			}
		}
		for (let n = 1; n <= 15; n++) expect(cases.some((c) => c.d.length === n)).toBe(true);
		for (const n of [49, 50, 51]) expect(cases.some((c) => c.d.length === n)).toBe(true);
		expect(cases.some((c) => c.d.includes(0))).toBe(true);
	});

	it.each(fixture.cases.map((c) => [label(c), c] as const))('%s', (_name, c) => {
		const r = wilcoxonSignedRank(c.d, {
			zeroMethod: c.zeroMethod,
			alternative: c.alternative,
			correction: c.correction,
		});
		expect(r.test).toBe(TEST_NAME[c.method]);
		expect(r.statistic).toBe(c.statistic);
		expect(Math.abs(r.pValue - c.pValue)).toBeLessThanOrEqual(1e-12);
	});

	it("the issue's examples: 4 and 5 paired ratings each one point worse give 0.125 and 0.0625", () => {
		expect(wilcoxonSignedRank([-1, -1, -1, -1]).pValue).toBe(0.125);
		expect(wilcoxonSignedRank([-1, -1, -1, -1, -1]).pValue).toBe(0.0625);
	});
});
