/**
 * Documents and chunks for the Eval Set Generator. A document is text with a URI; it is cut into
 * chunks of about `size` characters that overlap by `overlap` characters, cut at a paragraph,
 * sentence or word boundary where one lies in the last fifth of the window, so a chunk rarely
 * ends mid-word. Chunk ids are `<doc_uri>#<n>` (n from 1), stable for the same text and options.
 */

/** One source document. */
export interface SourceDocument {
	/** The document's URI or id (`expected_retrieved_context[].doc_uri` of the rows it seeds). */
	uri: string;
	text: string;
	/** Index of the input item it came from. */
	itemIndex: number;
}

/** One chunk of a document. */
export interface Chunk {
	/** `<doc_uri>#<n>`, n from 1. */
	id: string;
	docUri: string;
	/** Position in its document, from 0. */
	index: number;
	content: string;
	itemIndex: number;
}

/** Chunking options, in characters. */
export interface ChunkOptions {
	size: number;
	overlap: number;
}

export const DEFAULT_CHUNK_SIZE = 1200;
export const DEFAULT_CHUNK_OVERLAP = 150;

/** The options as used: a size of at least 50, an overlap below half the size. */
export function chunkOptions(o: Partial<ChunkOptions> = {}): ChunkOptions {
	const size = Math.max(
		50,
		Math.floor(Number.isFinite(o.size) ? (o.size as number) : DEFAULT_CHUNK_SIZE),
	);
	const raw = Number.isFinite(o.overlap) ? (o.overlap as number) : DEFAULT_CHUNK_OVERLAP;
	const overlap = Math.min(Math.max(0, Math.floor(raw)), Math.floor(size / 2) - 1);
	return { size, overlap };
}

/** Where to end a chunk that starts at `start`: the best boundary in the window's last fifth. */
function cutAt(text: string, start: number, size: number): number {
	const end = start + size;
	if (end >= text.length) return text.length;
	const floor = start + Math.floor(size * 0.8);
	const window = text.slice(floor, end);
	for (const re of [/\n\s*\n/g, /[.!?。！？]\s/g, /\s/g]) {
		let last = -1;
		for (const m of window.matchAll(re)) last = m.index + m[0].length;
		if (last > 0) return floor + last;
	}
	return end;
}

/** The chunks of one text: trimmed, none empty, each at most `size` characters. */
export function chunkText(text: string, options: Partial<ChunkOptions> = {}): string[] {
	const { size, overlap } = chunkOptions(options);
	const clean = text.replace(/\r\n?/g, '\n').trim();
	const out: string[] = [];
	let start = 0;
	while (start < clean.length) {
		const end = cutAt(clean, start, size);
		const piece = clean.slice(start, end).trim();
		if (piece) out.push(piece);
		if (end >= clean.length) break;
		// Step back by the overlap, then forward to a word start so no chunk opens mid-word.
		let next = Math.max(end - overlap, start + 1);
		while (next < end && next > 0 && /\S/.test(clean[next - 1]) && /\S/.test(clean[next])) next++;
		start = next;
	}
	return out;
}

/** Every document's chunks, in document order. */
export function chunkDocuments(
	docs: ReadonlyArray<SourceDocument>,
	options: Partial<ChunkOptions> = {},
): Chunk[] {
	const out: Chunk[] = [];
	for (const d of docs) {
		chunkText(d.text, options).forEach((content, index) =>
			out.push({
				id: `${d.uri}#${index + 1}`,
				docUri: d.uri,
				index,
				content,
				itemIndex: d.itemIndex,
			}),
		);
	}
	return out;
}

/** Plain text of an HTML page: scripts, styles and tags removed, entities decoded, blocks kept apart. */
export function htmlToText(html: string): string {
	return html
		.replace(/<(script|style|noscript)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
		.replace(/<!--[\s\S]*?-->/g, ' ')
		.replace(/<(br|\/p|\/div|\/h[1-6]|\/li|\/tr|\/section|\/article)\b[^>]*>/gi, '\n')
		.replace(/<[^>]+>/g, ' ')
		.replace(/&nbsp;/g, ' ')
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&quot;/g, '"')
		.replace(/&#39;|&apos;/g, "'")
		.replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
		.replace(/&amp;/g, '&')
		.replace(/[ \t]+/g, ' ')
		.replace(/\n\s*\n\s*(\n\s*)+/g, '\n\n')
		.trim();
}
