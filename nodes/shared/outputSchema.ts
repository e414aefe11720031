/**
 * Output schemas the editor shows before a node has run (Schema view, field mapping). n8n asks
 * `GET /schemas/<package>.<node>/<x.y.z>[/<resource>][/<operation>].json` and serves the file
 * `<node folder>/__schema__/v<x.y.z>[/<resource>][/<operation>].json` (n8n-core's
 * resolveOutputSchemaPath). The editor reads `type`, `properties` and `items` only, and the first
 * non-null type of a type list.
 *
 * What a schema says comes from the declarations: the Score shape, declared here field by field
 * against the `Score` type (the compiler fails when either changes alone), and each node's
 * outputs. A metric, judge or safety node declares its output through its factory (the record
 * fields its inputs read, then its Scores under `eval`: {@link scoringOutputSchema}); the build
 * writes it. Every other node's schema is what it outputs on a sample run, written to the
 * committed `nodes/<Node>/__schema__/` files by test/engine/output-schemas.test.ts, which also
 * checks every declared schema against the node's real output; the build copies them into dist.
 */
import type { InputDecl, InputKind, Score } from '../../src/core/types';

/** The part of JSON Schema the editor reads, with descriptions. */
export interface JsonSchema {
	type?: JsonType | JsonType[];
	description?: string;
	properties?: Record<string, JsonSchema>;
	items?: JsonSchema;
}

type JsonType = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

const num = (description: string): JsonSchema => ({ type: 'number', description });
const str = (description: string): JsonSchema => ({ type: 'string', description });

/** Every field of a Score, in the order a Score is written. */
const SCORE_FIELDS: { [K in keyof Required<Score>]: JsonSchema } = {
	metric: str('Metric or judge id, e.g. groundedness'),
	value: {
		type: ['number', 'boolean', 'null'],
		description: "On the metric's scale (yes/no judges: true/false); null unless status is ok",
	},
	scale: {
		type: 'object',
		description: 'The scale the value is on',
		properties: {
			kind: str('unit (0-1), likert (1-5), binary (yes/no), severity (0-7) or count'),
			min: num('Lowest value'),
			max: num('Highest value'),
		},
	},
	threshold: num('The threshold the row was checked against'),
	direction: str('higher: passes at or above the threshold; lower: at or below'),
	pass: {
		type: ['boolean', 'null'],
		description: 'Whether the row passes; null when it was not scored',
	},
	status: str('ok, not_applicable (a needed input or the judge model is missing) or error'),
	reason: str("The judge's rationale, or why the row was not scored"),
	error: str('What went wrong, when status is error'),
	usage: {
		type: 'object',
		description: 'Tokens the judge calls used',
		properties: {
			promptTokens: num('Prompt tokens'),
			completionTokens: num('Completion tokens'),
			totalTokens: num('All tokens'),
		},
	},
	model: str('The model that answered'),
	latencyMs: num('Milliseconds the judge took'),
	attempts: num('Calls made, retries included (0 for a cached verdict)'),
	cached: { type: 'boolean', description: 'Whether the verdict came from the verdict cache' },
	details: { type: 'object', description: 'Extra numbers (per-chunk verdicts, precision, turns)' },
	stats: { type: 'object', description: 'Mergeable statistics for corpus-level aggregation' },
	signature: str('Reproducibility stamp: evaluator id and version, model, prompt hash'),
};

/** The schema of one Score (what every metric and judge writes under `eval.<key>`). */
export function scoreSchema(): JsonSchema {
	return {
		type: 'object',
		description: 'The Score of this row',
		properties: { ...SCORE_FIELDS },
	};
}

/** The schema of a record field by the kind of value an evaluator reads from it. */
export function inputKindSchema(kind: InputKind): JsonSchema {
	switch (kind) {
		case 'text':
			return { type: 'string' };
		case 'texts':
			return { type: 'array', items: { type: 'string' } };
		case 'contexts':
			return {
				type: 'array',
				items: {
					type: 'object',
					properties: { doc_uri: { type: 'string' }, content: { type: 'string' } },
				},
			};
		case 'messages':
			return {
				type: 'array',
				items: {
					type: 'object',
					properties: { role: { type: 'string' }, content: { type: 'string' } },
				},
			};
		case 'json':
			// Any JSON (a named map or a list); the editor shows the first type.
			return { type: ['object', 'array', 'string'] };
		case 'toolCalls':
			return {
				type: 'array',
				items: {
					type: 'object',
					properties: {
						name: { type: 'string' },
						arguments: { type: 'object' },
						result: { type: 'string' },
						error: { type: 'string' },
						position: { type: 'number' },
					},
				},
			};
		case 'toolDefinitions':
			return {
				type: 'array',
				items: {
					type: 'object',
					properties: {
						name: { type: 'string' },
						description: { type: 'string' },
						parameters: { type: 'object' },
					},
				},
			};
	}
}

function typeOf(v: unknown): JsonType {
	if (v === null) return 'null';
	if (Array.isArray(v)) return 'array';
	const t = typeof v;
	return t === 'object' ? 'object' : t === 'number' || t === 'boolean' ? t : 'string';
}

/**
 * The schema of a set of JSON values: their types (null last), an object's properties in the
 * order they first appear, an array's items over every element.
 */
export function inferSchema(values: ReadonlyArray<unknown>): JsonSchema {
	const present = values.filter((v) => v !== undefined);
	const types: JsonType[] = [];
	for (const v of present) {
		const t = typeOf(v);
		if (!types.includes(t)) types.push(t);
	}
	types.sort((a, b) => (a === 'null' ? 1 : 0) - (b === 'null' ? 1 : 0));
	const out: JsonSchema = { type: types.length === 1 ? types[0] : types };
	if (types.length === 0) return {};
	if (types.includes('object')) {
		const objects = present.filter((v) => typeOf(v) === 'object') as Record<string, unknown>[];
		const keys: string[] = [];
		for (const o of objects) for (const k of Object.keys(o)) if (!keys.includes(k)) keys.push(k);
		if (keys.length > 0)
			out.properties = Object.fromEntries(
				keys.map((k) => [k, inferSchema(objects.map((o) => o[k]))]),
			);
	}
	if (types.includes('array')) {
		const elements = (present.filter(Array.isArray) as unknown[][]).flat();
		if (elements.length > 0) out.items = inferSchema(elements);
	}
	return out;
}

/**
 * A node's output schema from the items of a sample run: the inferred shape, with every Score
 * under `eval` described by {@link scoreSchema}. `keep` limits the top-level fields (a scoring
 * node keeps the fields it reads and the ones it adds, not everything the sample carried).
 */
export function outputSchemaOf(
	items: ReadonlyArray<Record<string, unknown>>,
	opts: {
		keep?: (field: string) => boolean;
		scoreKeys?: (key: string) => boolean;
		description?: string;
	} = {},
): JsonSchema {
	const inferred = inferSchema(items);
	const properties: Record<string, JsonSchema> = {};
	for (const [k, v] of Object.entries(inferred.properties ?? {})) {
		if (opts.keep && !opts.keep(k)) continue;
		if (k === 'eval' && v.properties) {
			const scores = Object.keys(v.properties).filter((key) => opts.scoreKeys?.(key) ?? true);
			properties.eval = {
				type: 'object',
				description: 'Scores by metric key',
				properties: Object.fromEntries(scores.map((key) => [key, scoreSchema()])),
			};
		} else properties[k] = v;
	}
	return {
		type: 'object',
		...(opts.description ? { description: opts.description } : {}),
		properties,
	};
}

/**
 * The output of a metric, judge or safety node in its default format (Score Up Front): each key's
 * verdict and pass first, then the record fields its inputs read (they pass through), then the
 * Score under `eval.<key>` of each key it writes.
 */
export function scoringOutputSchema(
	inputs: ReadonlyArray<Pick<InputDecl, 'field' | 'kind' | 'description'>>,
	keys: ReadonlyArray<string>,
): JsonSchema {
	const properties: Record<string, JsonSchema> = {};
	for (const k of keys) {
		properties[k] = {
			type: ['number', 'boolean', 'null'],
			description: `The row's ${k} verdict, on its own scale; null when it was not scored`,
		};
		properties[`${k}_pass`] = {
			type: ['boolean', 'null'],
			description: `Whether the row passes ${k}; null when it was not scored`,
		};
	}
	for (const i of inputs)
		properties[i.field] ??= { ...inputKindSchema(i.kind), description: i.description };
	properties.eval = {
		type: 'object',
		description: 'Scores by metric key',
		properties: Object.fromEntries(keys.map((k) => [k, scoreSchema()])),
	};
	return { type: 'object', properties };
}
