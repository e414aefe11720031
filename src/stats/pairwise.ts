/**
 * Statistics of pairwise preferences: the exact sign test on decisive verdicts, win rates with
 * Wilson's interval, and Bradley-Terry strengths for three or more variants.
 *
 * Reference behaviour matched:
 * - Sign test: scipy `binomtest(wins, wins + losses, 0.5, alternative='two-sided').pvalue`. With
 *   p = 1/2 the binomial is symmetric, so scipy's "sum of every outcome no more likely than the one
 *   observed" is 2 * P(X <= min(wins, losses)), capped at 1 (checked in test/unit/stats/pairwise).
 *   Ties carry no evidence about which side is better and are left out, as the sign test does.
 * - Win rate: (wins + ties / 2) / comparisons, the convention of MT-Bench and Chatbot Arena, with
 *   Wilson's score interval on that share ({@link wilsonInterval}, Wilson 1927).
 * - Bradley-Terry (Bradley and Terry 1952): P(i beats j) = p_i / (p_i + p_j), fitted by maximum
 *   likelihood with Hunter's MM iteration (Hunter 2004, "MM algorithms for generalized
 *   Bradley-Terry models", eq. 3), a tie counting half a win for each side. Strengths are reported
 *   on the log scale, centred to mean 0.
 */
import { wilsonInterval, type Interval } from './intervals';
import { percentileInterval } from './percentile';
import { createRng } from './random';
import { binomialCdf, type TestResult } from './tests';

/**
 * Exact two-sided sign test of `wins` against `losses` (ties dropped): 2 * P(X <= min) for
 * X ~ Binomial(wins + losses, 1/2), at most 1; p = 1 when nothing was decisive.
 */
export function signTest(wins: number, losses: number): TestResult {
	if (![wins, losses].every((v) => Number.isInteger(v) && v >= 0))
		throw new RangeError('signTest: counts must be non-negative integers');
	const n = wins + losses;
	const k = Math.min(wins, losses);
	const pValue = n === 0 ? 1 : Math.min(1, 2 * binomialCdf(k, n, 0.5));
	return { test: 'sign-exact', statistic: wins, pValue, n };
}

/** Win, tie and loss counts of one side against another. */
export interface WinTieLoss {
	wins: number;
	ties: number;
	losses: number;
}

/** A win rate with its interval and the sign test on the decisive comparisons. */
export interface WinRate extends WinTieLoss {
	comparisons: number;
	/** (wins + ties / 2) / comparisons; null when there were none. */
	rate: number | null;
	interval: Interval | null;
	sign: TestResult;
}

/**
 * The win rate of one side, ties counted as half a win, with Wilson's interval. The interval
 * takes wins + ties / 2 as the successes (not an integer when ties are odd: the formula is
 * continuous in it).
 */
export function winRate(counts: WinTieLoss, level = 0.95): WinRate {
	const { wins, ties, losses } = counts;
	if (![wins, ties, losses].every((v) => Number.isInteger(v) && v >= 0))
		throw new RangeError('winRate: counts must be non-negative integers');
	const comparisons = wins + ties + losses;
	const share = wins + ties / 2;
	return {
		wins,
		ties,
		losses,
		comparisons,
		rate: comparisons > 0 ? share / comparisons : null,
		interval: comparisons > 0 ? (wilsonInterval(share, comparisons, level) ?? null) : null,
		sign: signTest(wins, losses),
	};
}

/** One comparison of two variants, by index: `outcome` 1 = a better, 0 = b better, 0.5 = tie. */
export interface PairOutcome {
	a: number;
	b: number;
	outcome: number;
	/** Resampling unit (the request): comparisons of one group are drawn together. */
	group?: string;
}

/** A Bradley-Terry fit. */
export interface BradleyTerryFit {
	/** log p_i, centred to mean 0, by variant index. */
	strengths: number[];
	iterations: number;
	converged: boolean;
	/**
	 * True when some variant never won or never lost, where no maximum exists: each compared pair
	 * then got one virtual tie (half a win each way) so the fit stays finite.
	 */
	regularized: boolean;
}

/** Options of {@link bradleyTerry}. */
export interface BradleyTerryOptions {
	maxIterations?: number;
	/** Largest change of a log-strength at which the iteration stops; default 1e-10. */
	tolerance?: number;
	/** Virtual ties per compared pair; default: 0, or 1 when the plain maximum does not exist. */
	prior?: number;
}

/** Wins (ties as halves) and comparison counts between `k` variants. */
export function winMatrix(
	k: number,
	outcomes: readonly PairOutcome[],
): { wins: number[][]; games: number[][] } {
	const wins = Array.from({ length: k }, () => new Array<number>(k).fill(0));
	const games = Array.from({ length: k }, () => new Array<number>(k).fill(0));
	for (const o of outcomes) {
		if (o.a === o.b || o.a < 0 || o.b < 0 || o.a >= k || o.b >= k)
			throw new RangeError(`winMatrix: bad pair ${o.a}, ${o.b}`);
		if (!(o.outcome === 0 || o.outcome === 0.5 || o.outcome === 1))
			throw new RangeError('winMatrix: outcome must be 0, 0.5 or 1');
		wins[o.a][o.b] += o.outcome;
		wins[o.b][o.a] += 1 - o.outcome;
		games[o.a][o.b] += 1;
		games[o.b][o.a] += 1;
	}
	return { wins, games };
}

// The plain maximum exists when the graph "i beat j at least partly" is strongly connected
// (Zermelo 1929; Hunter 2004, assumption 1).
function stronglyConnected(wins: number[][]): boolean {
	const k = wins.length;
	const reach = (forward: boolean): boolean => {
		const seen = new Array<boolean>(k).fill(false);
		const stack = [0];
		seen[0] = true;
		while (stack.length) {
			const i = stack.pop() as number;
			for (let j = 0; j < k; j++) {
				const w = forward ? wins[i][j] : wins[j][i];
				if (!seen[j] && w > 0) {
					seen[j] = true;
					stack.push(j);
				}
			}
		}
		return seen.every(Boolean);
	};
	return k <= 1 || (reach(true) && reach(false));
}

/** Maximum-likelihood Bradley-Terry strengths of `k` variants from their comparisons. */
export function bradleyTerry(
	k: number,
	outcomes: readonly PairOutcome[],
	options: BradleyTerryOptions = {},
): BradleyTerryFit {
	const { wins, games } = winMatrix(k, outcomes);
	const regularized = options.prior === undefined ? !stronglyConnected(wins) : options.prior > 0;
	const prior = options.prior ?? (regularized ? 1 : 0);
	if (prior > 0) {
		for (let i = 0; i < k; i++)
			for (let j = 0; j < k; j++)
				if (i !== j && games[i][j] > 0) {
					wins[i][j] += prior / 2;
					games[i][j] += prior;
				}
	}
	const total = wins.map((row) => row.reduce((a, v) => a + v, 0));
	let p = new Array<number>(k).fill(1);
	const maxIterations = options.maxIterations ?? 10000;
	const tolerance = options.tolerance ?? 1e-10;
	let iterations = 0;
	let converged = k <= 1;
	while (!converged && iterations < maxIterations) {
		iterations++;
		const next = p.map((pi, i) => {
			let denom = 0;
			for (let j = 0; j < k; j++)
				if (j !== i && games[i][j] > 0) denom += games[i][j] / (pi + p[j]);
			return denom > 0 ? total[i] / denom : pi;
		});
		// Scale so the geometric mean is 1: the likelihood does not change, the logs stay centred.
		const logMean = next.reduce((a, v) => a + Math.log(v), 0) / k;
		const scaled = next.map((v) => v / Math.exp(logMean));
		let change = 0;
		for (let i = 0; i < k; i++)
			change = Math.max(change, Math.abs(Math.log(scaled[i]) - Math.log(p[i])));
		p = scaled;
		if (change < tolerance) converged = true;
	}
	const logs = p.map(Math.log);
	const centre = logs.reduce((a, v) => a + v, 0) / Math.max(1, k);
	return { strengths: logs.map((v) => v - centre), iterations, converged, regularized };
}

/** Bradley-Terry strengths with percentile-bootstrap intervals over resampled groups. */
export interface BradleyTerryResult extends BradleyTerryFit {
	intervals: { low: number; high: number }[];
	resamples: number;
	level: number;
	seed: number;
}

/**
 * {@link bradleyTerry} with percentile intervals: the groups (requests) are drawn with replacement
 * `resamples` times (seeded, default 1000 and 42), every comparison of a drawn group kept, the
 * strengths refitted with the same prior the full fit used.
 */
export function bradleyTerryBootstrap(
	k: number,
	outcomes: readonly PairOutcome[],
	options: { resamples?: number; seed?: number; level?: number } = {},
): BradleyTerryResult {
	const fit = bradleyTerry(k, outcomes);
	const resamples = options.resamples ?? 1000;
	const seed = options.seed ?? 42;
	const level = options.level ?? 0.95;
	const groups = new Map<string, PairOutcome[]>();
	outcomes.forEach((o, i) => {
		const g = o.group ?? `#${i}`;
		const list = groups.get(g);
		if (list) list.push(o);
		else groups.set(g, [o]);
	});
	const lists = [...groups.values()];
	const rng = createRng(seed);
	const draws = Array.from({ length: k }, () => new Float64Array(resamples));
	const prior = fit.regularized ? 1 : 0;
	for (let r = 0; r < resamples; r++) {
		const sample: PairOutcome[] = [];
		for (let g = 0; g < lists.length; g++) sample.push(...lists[Math.floor(rng() * lists.length)]);
		// A resample can break connectivity; the prior keeps every refit finite.
		const refit = bradleyTerry(k, sample, {
			prior: Math.max(prior, stronglyConnected(winMatrix(k, sample).wins) ? 0 : 1),
		});
		for (let i = 0; i < k; i++) draws[i][r] = refit.strengths[i];
	}
	const intervals = draws.map((d) => percentileInterval(d.sort(), level));
	return { ...fit, intervals, resamples, level, seed };
}
