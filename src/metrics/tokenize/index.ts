/**
 * Tokenizers that the traditional metrics share, each a port of the one its reference uses:
 * Azure's `nltk_tokenize` (BLEU, GLEU, METEOR), rouge_score's tokenizer and sacreBLEU's 13a.
 */
import { nistInternationalTokenize } from './nist';
import { wordTokenize } from './nltk-word';
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
