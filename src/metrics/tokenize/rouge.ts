/**
 * Google rouge_score's default tokenizer (rouge_score/tokenize.py, vendored unchanged by Azure),
 * without stemming: lowercase, every run outside [a-z0-9] becomes a separator, keep the rest.
 * Non-ASCII letters are therefore separators, exactly as in the reference.
 */

/** rouge_score `tokenize(text, stemmer=None)`. */
export function rougeTokenize(text: string): string[] {
	return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}
