/**
 * A scripted stand-in for the model behind the Eval Set Generator, shared by the engine tests
 * (through the local OpenAI-compatible server's reply handlers) and the E2E judge server CLI.
 * It reads the passages out of the nonce-delimited data block exactly as the model would see
 * them and writes a question from their own sentences, so rows are distinct when documents are,
 * and cite the labels they were given. Plain JS so the CLI can load it without a build.
 */
'use strict';

const KINDS = {
	'Kind: single fact.': 'single_fact',
	'Kind: reasoning.': 'reasoning',
	'Kind: multi-passage.': 'multi_chunk',
	'Kind: conversational follow-up.': 'conversational',
	'Kind: unanswerable.': 'unanswerable',
};

function text(messages, role) {
	const m = (messages || []).find((x) => x.role === role);
	return m && typeof m.content === 'string' ? m.content : '';
}

/** The passages of a generator or check prompt: label, source id and content, in order. */
function passagesOf(messages) {
	const user = text(messages, 'user');
	const block = /<(data-[0-9a-f]+) name="passages">\n([\s\S]*?)\n<\/\1>/.exec(user);
	if (!block) return [];
	const out = [];
	const re = /\[doc(\d+)\](?: \(source: ([^)\n]*)\))?\n([\s\S]*?)(?=\n\n\[doc\d+\]|$)/g;
	for (const m of block[2].matchAll(re))
		out.push({ label: `doc${m[1]}`, id: m[2], content: m[3].trim() });
	return out;
}

/** The question kind a generator prompt asks for, or null. */
function kindOf(messages) {
	const sys = text(messages, 'system');
	for (const [marker, kind] of Object.entries(KINDS)) if (sys.includes(marker)) return kind;
	return null;
}

function sentences(content) {
	return content
		.replace(/\[\[[^\]]*\]\]/g, '')
		.replace(/^#.*$/gm, '')
		.split(/(?<=[.!?])\s+/)
		.map((s) => s.trim())
		.filter((s) => s.length > 3);
}

function topic(sentence) {
	return sentence
		.replace(/[.!?]+$/, '')
		.replace(/^(the|a|an)\s+/i, '')
		.toLowerCase();
}

/** The generator's reply for a prompt (the `eval_set_question` object). */
function generatedQuestion(messages) {
	const passages = passagesOf(messages);
	const kind = kindOf(messages) || 'single_fact';
	const variant = Number((/request number (\d+)/.exec(text(messages, 'system')) || [])[1] || 1);
	const first = passages[0] || { id: 'none', content: '' };
	const s = sentences(first.content);
	const pick = s[(variant - 1) % Math.max(1, s.length)] || first.content;
	const empty = { opening_question: '', opening_answer: '' };
	if (kind === 'unanswerable') {
		return {
			...empty,
			question: `Who approved the budget for ${topic(pick)}?`,
			expected_facts: [],
			expected_response: 'The documents do not say who approved the budget.',
			cited_sources: [],
		};
	}
	if (kind === 'multi_chunk') {
		const second = passages[1] || first;
		const t = sentences(second.content)[0] || second.content;
		return {
			...empty,
			question: `How do ${topic(pick)} and ${topic(t)} fit together?`,
			expected_facts: [pick, t],
			expected_response: `${pick} ${t}`,
			cited_sources: [first.id, second.id],
		};
	}
	if (kind === 'conversational') {
		const next = s[variant % Math.max(1, s.length)] || pick;
		return {
			opening_question: `Can you tell me about ${topic(pick)}?`,
			opening_answer: pick,
			question: `And what about ${topic(next)}?`,
			expected_facts: [next],
			expected_response: next,
			cited_sources: [first.id],
		};
	}
	return {
		...empty,
		question: `${kind === 'reasoning' ? 'Why does it matter that' : 'What is true of'} ${topic(pick)}?`,
		expected_facts: [pick],
		expected_response: pick,
		cited_sources: [first.id],
	};
}

/**
 * The reply to one chat request when it is one of the generator's calls, else null: the
 * generator itself, and the unanswerable check (the passages never answer the test generator's
 * unanswerable questions).
 */
function generatorReply(req) {
	const name =
		req.responseFormat && req.responseFormat.json_schema && req.responseFormat.json_schema.name;
	const sys = text(req.messages, 'system');
	if (name === 'eval_set_question' || (!name && kindOf(req.messages)))
		return generatedQuestion(req.messages);
	if (
		name === 'generation_answerable' ||
		(!name && sys.startsWith('You decide whether some passages answer'))
	) {
		return { reason: 'The passages do not state who approved any budget.', verdict: 'no' };
	}
	if (
		name === 'generation_closed_book' ||
		(!name && sys.includes("without access to a particular organisation's documents"))
	) {
		return { reason: 'The answer depends on details only the documents give.', verdict: 'no' };
	}
	return null;
}

module.exports = { passagesOf, kindOf, generatedQuestion, generatorReply };
