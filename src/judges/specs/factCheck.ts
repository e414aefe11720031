/**
 * Fact check (Spring AI FactCheckingEvaluator, seed 003): is the claim supported by the document?
 * The node chooses the document: the retrieved context (Spring AI `dataList`), the request
 * (`userText`, as in the seed's own example with an empty `dataList`), or the context when there
 * is one and the request otherwise (default). The claim is the response.
 * Two modes. `standard`: our hardened prompt (nonce-delimited data, rationale then yes/no).
 * `minicheck`: the seed's bare `Document: ...` / `Claim: ...` with no system prompt and no format
 * instructions, temperature 0 and a short reply limit, reading a bare "Yes"/"No", so small
 * fact-checking models (Bespoke MiniCheck on Ollama) work as in the seed. MiniCheck mode gives up
 * the data delimiters (a document can carry instructions the model may follow), the rationale
 * and the structured-output ladder (docs/decisions.md). A MiniCheck model asked in standard mode
 * answers a bare "Yes"/"No" where JSON was asked: the row's error says to switch to MiniCheck.
 * `auto` starts in standard mode and, at the first such reply, judges that row and the rest of the
 * node run in MiniCheck mode (signature `factCheckMode:auto>minicheck`, `details.autoSwitch`).
 * Fills the groundedness slot.
 */
import type { ContextDoc } from '../../core/inputs';
import type { JudgeDecl } from '../types';
import { GROUNDEDNESS_SLOT } from './groundedness';
import {
	BINARY,
	contextInput,
	requestInput,
	responseInput,
	yesNoOutput,
	type YesNoVerdict,
} from './common';

/** Reads a MiniCheck-style reply: a leading "Yes" or "No" (any case, punctuation around). */
export function bareYesNo(reply: string): boolean | null {
	const m = /^[\s*_`"'([]*(yes|no)\b/i.exec(reply);
	return m ? m[1].toLowerCase() === 'yes' : null;
}

/** The document text as the seed's template shows it: the chunks' text, blank-line separated. */
export function documentText(docs: ContextDoc[]): string {
	return docs
		.map((d) => d.content ?? '')
		.filter((t) => t.trim() !== '')
		.join('\n\n');
}

/**
 * Most tokens a MiniCheck-mode reply may take. Spring AI's example asks Ollama for 2 (`numPredict`);
 * we allow 5 so "Yes." or a reply with a leading space or newline still fits. The reference text
 * and docs quote this constant, so they cannot drift from the call.
 */
export const MINICHECK_MAX_TOKENS = 5;

/** Spring AI FactCheckingEvaluator. */
export const factCheck: JudgeDecl<YesNoVerdict> = {
	id: 'fact_check',
	order: 170,
	version: '1',
	displayName: 'Fact Check (Spring AI)',
	description:
		'Says yes when the claim (the response) is supported by the document; a MiniCheck mode serves small fact-checking models',
	reference: `Spring AI FactCheckingEvaluator (seed 003): Document/Claim template, designed for Bespoke MiniCheck via Ollama; MiniCheck mode sends it at temperature 0 with a ${MINICHECK_MAX_TOKENS}-token reply limit (Spring AI's example: 2)`,
	anchorNames: ['FactCheckingEvaluator', 'MiniCheck'],
	inputs: [
		{ ...contextInput(false), displayName: 'Document (Context)' },
		{ ...requestInput(false), displayName: 'Document (Request)' },
		{ ...responseInput, displayName: 'Claim' },
	],
	params: [
		{
			name: 'documentSource',
			displayName: 'Document',
			type: 'options',
			default: 'auto',
			options: [
				{ name: 'Context, Else Request', value: 'auto' },
				{ name: 'Retrieved Context (dataList)', value: 'context' },
				{ name: 'Request (userText)', value: 'request' },
			],
			description:
				"Which field holds the document the claim is checked against. Spring AI's own example passes it as userText with an empty dataList.",
		},
		{
			name: 'factCheckMode',
			displayName: 'Mode',
			type: 'options',
			default: 'standard',
			options: [
				{ name: 'Standard (Rationale, Delimited Data)', value: 'standard' },
				{ name: 'MiniCheck (Bare Document/Claim Prompt)', value: 'minicheck' },
				{ name: 'Auto (MiniCheck Once the Model Answers a Bare Yes/No)', value: 'auto' },
			],
			description:
				'MiniCheck sends only "Document: ... Claim: ..." at temperature 0 and reads a bare Yes/No, for small fact-checking models. It gives up the data delimiters (the document is not fenced off as data), the rationale and the edited prompt. Auto starts in Standard mode and switches to MiniCheck for the rest of the run at the first bare Yes/No reply.',
		},
	],
	scale: BINARY,
	threshold: { default: 1, direction: 'higher' },
	rootCause: GROUNDEDNESS_SLOT,
	prompt: {
		system: [
			'You check whether a claim is supported by a document.',
			'Answer "yes" when everything the claim states follows from the document, and "no" when any part contradicts it or cannot be confirmed from it, even if it is true in the world.',
			'A question, when given, only says what the claim is about.',
		].join('\n'),
		user: 'Document:\n{retrieved_context}\n\nQuestion:\n{request}\n\nClaim:\n{response}',
	},
	output: yesNoOutput('fact_check'),
	toValue: (p) => p.verdict === 'yes',
	toReason: (p) => p.reason,
	bareYesNo: {
		advice:
			'a fact-checking model such as Bespoke MiniCheck answers only Yes or No; set Mode to MiniCheck (or Auto)',
		autoSwitch: { param: 'factCheckMode', auto: 'auto', to: 'minicheck' },
	},
	fanOut: {
		split(values, params) {
			const source = String(params.documentSource ?? 'auto');
			const context = values.context as ContextDoc[] | undefined;
			const request = values.request as string | undefined;
			let docs: ContextDoc[] | undefined;
			let question: string | undefined;
			if (source === 'context' || (source === 'auto' && context !== undefined)) {
				docs = context;
				question = request;
			} else if (request !== undefined) docs = [{ content: request }];
			if (docs === undefined || documentText(docs) === '') {
				const field = source === 'context' ? 'retrieved_context' : 'retrieved_context or request';
				return { notApplicable: `missing ${field}: no document text to check the claim against` };
			}
			const claim = values.response as string;
			if (params.factCheckMode === 'minicheck') {
				return [
					{
						key: 'claim',
						values: {},
						bare: {
							user: `Document: ${documentText(docs)}\nClaim: ${claim}`,
							maxTokens: MINICHECK_MAX_TOKENS,
							parse: bareYesNo,
						},
					},
				];
			}
			return [{ key: 'claim', values: { context: docs, request: question, response: claim } }];
		},
		fold([o]) {
			return { value: o.score.value === true, reason: o.score.reason ?? '' };
		},
	},
};
