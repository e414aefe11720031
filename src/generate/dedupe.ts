/**
 * Near-duplicate questions by n-gram similarity: the Jaccard similarity of the character
 * trigram sets of two normalised questions (lower case, punctuation and extra spaces removed).
 * Character n-grams catch reworded near-copies ("What is the refund period?" / "What's the
 * refund period") that word overlap scores low; 1 means the same normalised text.
 */

/** Lower case, letters and digits only, single spaces. */
export function normaliseQuestion(text: string): string {
	return text
		.normalize('NFKC')
		.toLowerCase()
		.replace(/[^\p{L}\p{N}]+/gu, ' ')
		.trim();
}

/** The set of character n-grams of a normalised text (padded, so short texts still have some). */
export function charNgrams(text: string, n = 3): Set<string> {
	const t = ` ${normaliseQuestion(text)} `;
	const out = new Set<string>();
	if (t.trim() === '') return out;
	for (let i = 0; i + n <= t.length; i++) out.add(t.slice(i, i + n));
	return out;
}

/** Jaccard similarity of two n-gram sets, 0-1 (two empty sets: 1). */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
	if (a.size === 0 && b.size === 0) return 1;
	let inter = 0;
	const [small, large] = a.size <= b.size ? [a, b] : [b, a];
	for (const g of small) if (large.has(g)) inter++;
	return inter / (a.size + b.size - inter);
}

/** Similarity of two questions, 0-1. */
export function questionSimilarity(a: string, b: string, n = 3): number {
	return jaccard(charNgrams(a, n), charNgrams(b, n));
}

/** A kept text's n-grams, with the id it is known by. */
interface Kept {
	id: string;
	grams: Set<string>;
}

/**
 * Keeps texts in the order given; a text whose similarity to an already kept one is at or above
 * the threshold is a duplicate of the most similar kept text.
 */
export class NearDuplicateFilter {
	private readonly kept: Kept[] = [];
	constructor(
		readonly threshold: number,
		private readonly n = 3,
	) {}

	/** Adds a text without checking it (rows kept earlier, or existing golden rows). */
	seed(id: string, text: string): void {
		this.kept.push({ id, grams: charNgrams(text, this.n) });
	}

	/** Null when the text is new (and now kept), else the kept text it duplicates. */
	check(id: string, text: string): { of: string; similarity: number } | null {
		const grams = charNgrams(text, this.n);
		let best: { of: string; similarity: number } | null = null;
		for (const k of this.kept) {
			const s = jaccard(grams, k.grams);
			if (s >= this.threshold && (!best || s > best.similarity)) best = { of: k.id, similarity: s };
		}
		if (!best) this.kept.push({ id, grams });
		return best;
	}
}
