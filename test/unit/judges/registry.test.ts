/** Registry rules over every judge declaration, and that validation catches broken ones. */
import { placeholdersOf } from '../../../src/judges/prompt';
import { judgeRegistry, validateJudge, validateRegistry } from '../../../src/judges/registry';
import { groundedness } from '../../../src/judges/specs/groundedness';

describe('judgeRegistry', () => {
	it('holds the Azure, Databricks, Spring AI and custom judges with unique ids, custom last', () => {
		const ids = judgeRegistry.map((d) => d.id);
		expect(ids).toEqual([
			'groundedness',
			'groundedness_verdict',
			'relevance',
			'relevance_conversation',
			'relevance_conversation_gt',
			'coherence',
			'fluency',
			'similarity',
			'retrieval',
			'relevance_to_query',
			'safety',
			'correctness',
			'chunk_relevance',
			'context_sufficiency',
			'guideline_adherence',
			'relevancy',
			'fact_check',
			'custom_judge',
		]);
		expect(new Set(ids).size).toBe(ids.length);
	});

	it.each(judgeRegistry.map((d) => [d.id, d] as const))(
		'%s is a valid declaration',
		(_id, decl) => {
			expect(validateJudge(decl)).toEqual([]);
			expect(decl.description.length).toBeGreaterThan(10);
			expect(decl.reference).toMatch(/seeds? 00\d/);
			expect(decl.threshold).toEqual({
				default: { binary: 1, likert: 3, unit: 0.5 }[decl.scale.kind as string],
				direction: 'higher',
			});
			const schema = decl.output.jsonSchema as {
				required: string[];
				properties: Record<string, unknown>;
				additionalProperties: boolean;
			};
			// OpenAI strict mode: every property required, no extras
			expect(schema.required).toEqual(Object.keys(schema.properties));
			expect(schema.additionalProperties).toBe(false);
			const keys = Object.keys(schema.properties);
			// The reason comes before the verdict, which is the last property. (indexOf alone would
			// pass with no reason at all: -1 is less than anything.)
			expect(keys).toContain('reason');
			expect(['score', 'verdict']).toContain(keys[keys.length - 1]);
			expect(keys.indexOf('reason')).toBeLessThan(keys.length - 1);
			for (const input of decl.inputs)
				expect(placeholdersOf(decl.prompt.user)).toContain(input.field);
		},
	);

	it('catches undeclared placeholders, unused inputs and duplicate ids', () => {
		const broken = {
			...groundedness,
			prompt: { system: 'x {mystery}', user: '{response} {retrieved_context}' },
		};
		expect(validateJudge(broken)).toEqual([
			'groundedness: unknown placeholder {mystery}',
			'groundedness: the prompt does not include {request} (Query)',
		]);
		const doubled = {
			...groundedness,
			prompt: { ...groundedness.prompt, user: `${groundedness.prompt.user} {{response}}` },
		};
		expect(validateJudge(doubled)[0]).toMatch(/\{\{response\}\} uses double braces/);
		expect(() => validateRegistry([groundedness, groundedness])).toThrow(
			/duplicate judge id 'groundedness'/,
		);
	});
});
