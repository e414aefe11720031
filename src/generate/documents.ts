/**
 * Reading documents from items: plain `{text | content, id | doc_uri | uri}` objects, LangChain
 * documents as n8n's document loaders and vector stores give them (`pageContent` with
 * `metadata.source` or `metadata.id`), and file text decoded by the node. A document without text
 * or without any id is not guessed at: it is refused with the reason, and the node sends it to
 * its Invalid output.
 */
import { htmlToText, type SourceDocument } from './chunk';

const TEXT_FIELDS = ['text', 'content', 'pageContent', 'page_content', 'document', 'body'];
const ID_FIELDS = [
	'doc_uri',
	'uri',
	'url',
	'id',
	'source',
	'document_id',
	'doc_id',
	'path',
	'fileName',
	'file_name',
	'title',
];

function str(v: unknown): string | undefined {
	if (typeof v === 'string' && v.trim() !== '') return v.trim();
	if (typeof v === 'number' && Number.isFinite(v)) return String(v);
	return undefined;
}

/** A document read from an item, or why it cannot be one. */
export type ReadDocument = { doc: SourceDocument } | { error: string };

/**
 * Reads one item's json as a document. `fields` overrides the text and id field names
 * (a blank name keeps the search). `fallbackId` (a file name) is used when the item has no id.
 */
export function readDocument(
	json: Record<string, unknown>,
	itemIndex: number,
	fields: { text?: string; id?: string } = {},
	fallbackId?: string,
): ReadDocument {
	const meta =
		json.metadata && typeof json.metadata === 'object'
			? (json.metadata as Record<string, unknown>)
			: {};
	const textField = fields.text?.trim();
	const idField = fields.id?.trim();
	let text: string | undefined;
	let from = '';
	if (textField) {
		const v = json[textField];
		if (typeof v !== 'string') {
			return {
				error: `field "${textField}" ${v === undefined ? 'is missing' : 'is not text'} (Text Field)`,
			};
		}
		text = v;
		from = textField;
	} else {
		for (const f of TEXT_FIELDS) {
			if (typeof json[f] === 'string') {
				text = json[f] as string;
				from = f;
				break;
			}
		}
	}
	if (text === undefined) {
		return {
			error: `no document text: expected one of ${TEXT_FIELDS.join(', ')} (or set Text Field), or a binary file`,
		};
	}
	if (/<\/?(html|body|p|div|h[1-6])\b/i.test(text) && /<\/[a-z]/i.test(text))
		text = htmlToText(text);
	if (text.trim() === '') return { error: `the document text (${from}) is empty` };
	let uri: string | undefined;
	if (idField) {
		uri = str(json[idField]) ?? str(meta[idField]);
		if (!uri) return { error: `field "${idField}" (ID Field) is missing or empty` };
	} else {
		for (const f of ID_FIELDS) {
			uri = str(json[f]) ?? str(meta[f]) ?? uri;
			if (uri) break;
		}
		uri ??= fallbackId;
	}
	if (!uri) {
		return {
			error: `no document id: expected one of ${ID_FIELDS.join(', ')} on the item or in its metadata (or set ID Field); rows must name their source document`,
		};
	}
	return { doc: { uri, text, itemIndex } };
}

/**
 * Text of a file by its MIME type or name: plain text, Markdown, HTML (tags removed) and other
 * text types. PDF and other binary formats are refused with advice (n8n's Extract From File
 * node turns a PDF into text first).
 */
export function fileText(
	data: Uint8Array,
	mimeType: string | undefined,
	fileName: string | undefined,
): { text: string } | { error: string } {
	const mime = (mimeType ?? '').toLowerCase();
	const ext = (/\.([a-z0-9]+)$/i.exec(fileName ?? '')?.[1] ?? '').toLowerCase();
	const html = mime.includes('html') || ext === 'html' || ext === 'htm';
	const texty =
		html ||
		mime.startsWith('text/') ||
		/json|xml|markdown|yaml/.test(mime) ||
		['txt', 'md', 'markdown', 'mdx', 'rst', 'csv', 'json', 'xml', 'yaml', 'yml'].includes(ext);
	if (!texty) {
		const what = mime || (ext ? `.${ext}` : 'unknown type');
		return {
			error:
				`file ${fileName ?? ''} (${what}) is not text: convert it first (n8n's Extract From File node gives a PDF's text)`.replace(
					'  ',
					' ',
				),
		};
	}
	let text: string;
	try {
		text = new TextDecoder('utf-8', { fatal: true }).decode(data);
	} catch {
		return { error: `file ${fileName ?? ''} is not valid UTF-8 text`.replace('  ', ' ') };
	}
	if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
	return { text: html ? htmlToText(text) : text };
}
