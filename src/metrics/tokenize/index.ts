/**
 * Tokenizers that the traditional metrics share, each a port of the one its reference uses:
 * Azure's `nltk_tokenize` (BLEU, GLEU, METEOR), rouge_score's tokenizer and sacreBLEU's 13a.
 */
import { type CharTokenTable, internPySplit, splitCount } from './ids';
import { nistInternationalTokenize } from './nist';
import { nltkWordTokenizeSentenceText, wordTokenize } from './nltk-word';
import { sentTokenize } from './punkt';
import { isAscii } from './py';

export { nistInternationalTokenize, xmlUnescape } from './nist';
export { nltkWordTokenizeSentence, wordTokenize } from './nltk-word';
export { punktWordTokenize, sentTokenize } from './punkt';
export { isAscii, pyRstrip, pySplit, pyStrip, PY_NS, PY_S, PY_WS_CLASS } from './py';
export { rougeTokenize } from './rouge';
export { tokenize13a } from './sacrebleu13a';

/**
 * Azure AI Evaluation's `nltk_tokenize`: the NIST international tokenizer when the text is not
 * ASCII, else `nltk.word_tokenize` (Punkt english sentences + NLTKWordTokenizer).
 */
export function nltkTokenize(text: string): string[] {
	return isAscii(text) ? wordTokenize(text) : nistInternationalTokenize(text);
}

/**
 * The tokens of nltkTokenize(text) interned in `table`, their ids appended to `out` from index
 * `n` (`out` returned, maybe grown; the new length in `splitCount[0]`). For ASCII text the
 * word tokenizer's rewritten sentences are split straight into ids, no token strings built.
 */
export function nltkTokenizeIds(
	text: string,
	table: CharTokenTable,
	out: Int32Array,
	n: number,
): Int32Array {
	if (isAscii(text)) {
		for (const sentence of sentTokenize(text)) {
			out = internPySplit(table, nltkWordTokenizeSentenceText(sentence), out, n);
			n = splitCount[0];
		}
		splitCount[0] = n;
		return out;
	}
	for (const tok of nistInternationalTokenize(text)) {
		if (n === out.length) {
			const g = new Int32Array(out.length * 2);
			g.set(out);
			out = g;
		}
		out[n++] = table.intern(tok);
	}
	splitCount[0] = n;
	return out;
}
