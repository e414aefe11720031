/**
 * The Eval Set Generator's deterministic parts: chunking with size and overlap, reading
 * documents from items and files, the seeded plan of kinds, the n-gram near-duplicate filter,
 * and the shape checks of a generated question.
 */
import {
	chunkDocuments,
	chunkOptions,
	chunkText,
	fileText,
	generatorSignature,
	htmlToText,
	kindCounts,
	NearDuplicateFilter,
	parseMix,
	Planner,
	questionProblem,
	questionSimilarity,
	readDocument,
	resolveCitation,
	type GeneratedQuestion,
} from '../../../src/generate';

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

describe('chunkText', () => {
	it('cuts long text into chunks of at most the size that overlap by about the overlap, never mid-word', () => {
		const text = words(400);
		const chunks = chunkText(text, { size: 200, overlap: 40 });
		expect(chunks.length).toBeGreaterThan(10);
		for (const c of chunks) {
			expect(c.length).toBeLessThanOrEqual(200);
			expect(c).toMatch(/^word\d+/);
			expect(c).toMatch(/word\d+$/);
		}
		// Consecutive chunks share their boundary words, and together they hold every word.
		for (let i = 1; i < chunks.length; i++) {
			const lastOfPrev = chunks[i - 1].split(' ').slice(-1)[0];
			expect(chunks[i].split(' ')).toContain(lastOfPrev);
		}
		const seen = new Set(chunks.flatMap((c) => c.split(' ')));
		expect(seen.size).toBe(400);
	});

	it('without overlap the chunks partition the text', () => {
		const text = words(300);
		const chunks = chunkText(text, { size: 150, overlap: 0 });
		expect(chunks.join(' ')).toBe(text);
	});

	it('prefers a paragraph or sentence end near the end of the window', () => {
		const text = `${'a'.repeat(85)}. Next sentence here.\n\nSecond paragraph.`;
		expect(chunkText(text, { size: 100, overlap: 0 })[0]).toBe(`${'a'.repeat(85)}.`);
	});

	it('short text is one chunk; blank text none; options are clamped', () => {
		expect(chunkText('  Hello there.  ')).toEqual(['Hello there.']);
		expect(chunkText(' \n ')).toEqual([]);
		expect(chunkOptions({ size: 10, overlap: 500 })).toEqual({ size: 50, overlap: 24 });
	});

	it('chunk ids are <doc_uri>#<n> in document order, carrying their item', () => {
		const chunks = chunkDocuments(
			[
				{ uri: 'a.md', text: words(100), itemIndex: 0 },
				{ uri: 'b.md', text: 'short', itemIndex: 3 },
			],
			{ size: 200, overlap: 20 },
		);
		expect(chunks.map((c) => c.id)).toEqual(['a.md#1', 'a.md#2', 'a.md#3', 'a.md#4', 'b.md#1']);
		expect(chunks[4]).toMatchObject({ docUri: 'b.md', index: 0, content: 'short', itemIndex: 3 });
	});
});

describe('documents', () => {
	it('reads plain, LangChain-loader and vector-store shaped items', () => {
		expect(readDocument({ id: 'x', text: 'T' }, 0)).toEqual({
			doc: { uri: 'x', text: 'T', itemIndex: 0 },
		});
		expect(
			readDocument({ pageContent: 'P', metadata: { source: 'blob/a.pdf', loc: { lines: {} } } }, 2),
		).toEqual({
			doc: { uri: 'blob/a.pdf', text: 'P', itemIndex: 2 },
		});
		expect(readDocument({ document: { x: 1 }, content: 'C', doc_uri: 'u' }, 1)).toMatchObject({
			doc: { uri: 'u', text: 'C' },
		});
	});

	it('refuses items without text or id, or with the named field missing', () => {
		expect(readDocument({ id: 'x' }, 0)).toEqual({
			error: expect.stringMatching(/^no document text/),
		});
		expect(readDocument({ text: 'T' }, 0)).toEqual({
			error: expect.stringMatching(/^no document id/),
		});
		expect(readDocument({ text: '   ', id: 'x' }, 0)).toEqual({
			error: 'the document text (text) is empty',
		});
		expect(readDocument({ body: 'B', id: 'x' }, 0, { text: 'article' })).toEqual({
			error: 'field "article" is missing (Text Field)',
		});
		expect(readDocument({ text: 'T', id: 'x' }, 0, { id: 'sku' })).toEqual({
			error: 'field "sku" (ID Field) is missing or empty',
		});
		expect(readDocument({ text: 'T' }, 0, {}, 'file.md')).toMatchObject({
			doc: { uri: 'file.md' },
		});
	});

	it('HTML becomes text; files are decoded by type; PDF and binary are refused with advice', () => {
		expect(
			htmlToText(
				'<html><head><style>p{}</style></head><body><h1>Title</h1><p>One &amp; two</p><script>x()</script></body></html>',
			),
		).toBe('Title\n One & two');
		expect(fileText(Buffer.from('# T\n\nbody'), 'text/markdown', 'a.md')).toEqual({
			text: '# T\n\nbody',
		});
		expect(fileText(Buffer.from('<p>Hi</p>'), undefined, 'a.html')).toEqual({ text: 'Hi' });
		expect(fileText(Buffer.from('%PDF'), 'application/pdf', 'm.pdf')).toEqual({
			error: expect.stringMatching(/Extract From File/),
		});
		expect(fileText(Buffer.from([0xff, 0xfe, 0x00]), 'text/plain', 'x.txt')).toEqual({
			error: 'file x.txt is not valid UTF-8 text',
		});
	});
});

describe('plan', () => {
	it('parses a mix and refuses unknown kinds and all-zero weights', () => {
		expect(parseMix('single_fact=2, unanswerable:1')).toEqual({ single_fact: 2, unanswerable: 1 });
		expect(() => parseMix('trivia=1')).toThrow(/unknown question kind "trivia"/);
		expect(() => parseMix('single_fact=0')).toThrow(/every weight in the mix is 0/);
		expect(() => parseMix('single_fact')).toThrow(/not kind=weight/);
	});

	it('splits rows over kinds by largest remainder, exactly the number asked', () => {
		expect(
			kindCounts(10, {
				single_fact: 40,
				reasoning: 20,
				multi_chunk: 15,
				conversational: 15,
				unanswerable: 10,
			}),
		).toEqual({
			single_fact: 4,
			reasoning: 2,
			multi_chunk: 2,
			conversational: 1,
			unanswerable: 1,
		});
		const c = kindCounts(7, { single_fact: 1, reasoning: 1, unanswerable: 1 });
		expect(Object.values(c).reduce((a, b) => a + b, 0)).toBe(7);
		expect(c.multi_chunk).toBe(0);
	});

	it('the same seed gives the same plan; another seed another; chunks are used once before any repeats', () => {
		const chunks = chunkDocuments(
			Array.from({ length: 20 }, (_, i) => ({ uri: `d${i}`, text: `text ${i}`, itemIndex: i })),
		);
		const counts = kindCounts(20, { single_fact: 1, multi_chunk: 1 });
		const a = new Planner(chunks, 1).plan(counts);
		expect(new Planner(chunks, 1).plan(counts)).toEqual(a);
		expect(new Planner(chunks, 2).plan(counts)).not.toEqual(a);
		const firsts = a.map((s) => s.chunkIds[0]);
		expect(new Set(firsts).size).toBe(20);
		for (const s of a) expect(s.chunkIds).toHaveLength(s.kind === 'multi_chunk' ? 2 : 1);
		for (const s of a.filter((x) => x.kind === 'multi_chunk'))
			expect(s.chunkIds[0]).not.toBe(s.chunkIds[1]);
		// Kinds are interleaved, so a run cut short keeps the mix.
		expect(
			a
				.slice(0, 4)
				.map((s) => s.kind)
				.sort(),
		).toEqual(['multi_chunk', 'multi_chunk', 'single_fact', 'single_fact']);
	});

	it('a top-up round continues the stream, counting variants of reused chunks', () => {
		const chunks = chunkDocuments([{ uri: 'only', text: 'one chunk', itemIndex: 0 }]);
		const p = new Planner(chunks, 1);
		const first = p.plan(kindCounts(2, { single_fact: 1 }));
		const second = p.plan(kindCounts(1, { single_fact: 1 }));
		expect(first.map((s) => [s.slot, s.variant, s.round])).toEqual([
			[0, 1, 0],
			[1, 2, 0],
		]);
		expect(second.map((s) => [s.slot, s.variant, s.round])).toEqual([[2, 3, 1]]);
	});
});

describe('near-duplicates', () => {
	it('character trigram similarity: 1 for the same normalised text, high for rewordings, low for different questions', () => {
		expect(questionSimilarity('What is the refund period?', 'what is the REFUND period')).toBe(1);
		expect(
			questionSimilarity('What is the refund period?', "What's the refund period for returns?"),
		).toBeGreaterThan(0.5);
		expect(
			questionSimilarity('What is the refund period?', 'Who signs the delivery note?'),
		).toBeLessThan(0.2);
	});

	it('the filter keeps the first and names it for later near-copies; seeded texts count as kept', () => {
		const f = new NearDuplicateFilter(0.8);
		f.seed('golden-1', 'How long does express shipping take?');
		expect(f.check('g1', 'How long does express shipping take')).toEqual({
			of: 'golden-1',
			similarity: 1,
		});
		expect(f.check('g2', 'Which documents does a refund need?')).toBeNull();
		expect(f.check('g3', 'Which documents does a refund need')).toMatchObject({ of: 'g2' });
	});
});

describe('question shape', () => {
	const q = (over: Partial<GeneratedQuestion>): GeneratedQuestion => ({
		opening_question: '',
		opening_answer: '',
		question: 'What is X?',
		expected_facts: ['X is Y.'],
		expected_response: 'X is Y.',
		cited_sources: ['a#1'],
		...over,
	});
	it('accepts citations by chunk id or [docN] label and refuses unknown ones', () => {
		expect(resolveCitation('a#1', ['a#1'])).toBe('a#1');
		expect(resolveCitation('[doc2]', ['a#1', 'b#1'])).toBe('b#1');
		expect(resolveCitation('doc3', ['a#1', 'b#1'])).toBeUndefined();
		expect(questionProblem(q({}), 'single_fact', ['a#1'], 'facts')).toBeNull();
		expect(questionProblem(q({ cited_sources: ['z#9'] }), 'single_fact', ['a#1'], 'facts')).toMatch(
			/cites "z#9", which is not among the chunks it was given \(a#1\)/,
		);
		expect(questionProblem(q({ cited_sources: [] }), 'single_fact', ['a#1'], 'facts')).toBe(
			'the reply cites no source chunk',
		);
	});
	it('each kind has its own requirements', () => {
		expect(questionProblem(q({ expected_facts: [' '] }), 'reasoning', ['a#1'], 'facts')).toBe(
			'the reply lists no expected facts',
		);
		expect(questionProblem(q({ expected_response: '' }), 'reasoning', ['a#1'], 'response')).toBe(
			'the reply has no expected response',
		);
		expect(questionProblem(q({}), 'multi_chunk', ['a#1', 'a#2'], 'facts')).toBe(
			'a multi-chunk question cites only one chunk',
		);
		expect(
			questionProblem(
				q({ cited_sources: ['a#1', 'doc2'] }),
				'multi_chunk',
				['a#1', 'a#2'],
				'facts',
			),
		).toBeNull();
		expect(questionProblem(q({}), 'conversational', ['a#1'], 'facts')).toMatch(
			/without its opening question/,
		);
		expect(
			questionProblem(
				q({ expected_facts: [], cited_sources: [] }),
				'unanswerable',
				['a#1'],
				'facts',
			),
		).toBeNull();
		expect(questionProblem(q({ question: ' ' }), 'unanswerable', ['a#1'], 'facts')).toBe(
			'the reply has an empty question',
		);
	});
	it('the signature names generator, model, temperature, prompts, seed and chunking, never a key', () => {
		const s = generatorSignature({
			model: 'gpt-4o-mini',
			temperature: 0.7,
			seed: 3,
			chunk: { size: 500, overlap: 50 },
		});
		expect(s).toMatch(
			/^generator:eval_set_generator@1\|model:gpt-4o-mini\|temp:0\.7\|prompt:[0-9a-f]{12}\|seed:3\|chunk:500\/50$/,
		);
	});
});
