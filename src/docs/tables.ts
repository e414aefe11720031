/**
 * The README's evaluator tables, rendered from the declarations (declare once): metrics, judges
 * and the root-cause slots with their router outputs and orders. `scripts/docs.js` writes them
 * into the README and checks it in CI; tests render them with extra declarations.
 */
import type { EvaluatorFacts, MetricDecl } from '../core/types';
import { retrievalMetrics } from '../metrics/retrieval';
import { defaultOrder, routerOutputNames } from '../rootcause';

const esc = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const pascal = (id: string): string =>
	id
		.split(/[_-]/)
		.map((p) => p.charAt(0).toUpperCase() + p.slice(1))
		.join('');
const reads = (d: EvaluatorFacts): string =>
	d.inputs.map((i) => `\`${i.field}\`${i.required ? '' : ' (optional)'}`).join(', ');
const scale = (d: EvaluatorFacts): string =>
	d.scale.kind === 'binary'
		? 'yes/no'
		: d.scale.min < 0
			? `${d.scale.min} to ${d.scale.max}`
			: `${d.scale.min}-${d.scale.max}`;
const passWhen = (d: EvaluatorFacts): string =>
	d.scale.kind === 'binary'
		? d.threshold.direction === 'higher'
			? 'yes'
			: 'no'
		: `${d.threshold.direction === 'higher' ? '>=' : '<='} ${d.threshold.default}`;
const slot = (d: EvaluatorFacts): string => (d.rootCause ? `\`${d.rootCause.slot}\`` : '-');
const databricks = (d: EvaluatorFacts): string =>
	d.databricks
		? [
				d.databricks.column,
				...(d.databricks.columnAliases ?? []),
				d.databricks.rationaleColumn,
				d.databricks.runMetric,
			]
				.filter((x): x is string => x !== undefined)
				.map((x) => `\`${x}\``)
				.join('<br>')
		: '-';

/**
 * Markdown of the metric, embedding metric, judge, risk and safety, and root-cause slot tables for
 * the given registries.
 */
export function evaluatorTables(
	metrics: ReadonlyArray<MetricDecl>,
	judges: ReadonlyArray<EvaluatorFacts>,
	safety: ReadonlyArray<EvaluatorFacts> = [],
	embedding: ReadonlyArray<EvaluatorFacts> = [],
): string {
	const lines: string[] = ['### Deterministic metrics', ''];
	lines.push(
		'| node | what it measures | score key | reads | scale | pass when | reference behaviour matched |',
		'| --- | --- | --- | --- | --- | --- | --- |',
	);
	for (const d of metrics) {
		const key = d.scoreKey ? `${d.scoreKey({})} (the ${d.displayName} type)` : d.id;
		// The retrieval metrics share one node (Retrieval Metrics) with a Metric chooser.
		const family = retrievalMetrics.includes(d);
		const anchor = family
			? d === retrievalMetrics[0]
				? '<a id="evalretrievalmetrics"></a>'
				: ''
			: `<a id="eval${pascal(d.id).toLowerCase()}"></a>`;
		const label = family ? `Retrieval Metrics: ${d.displayName}` : d.displayName;
		lines.push(
			`| ${anchor}**${esc(label)}** | ${esc(d.description)} | \`${key}\` | ${reads(d)} | ${scale(d)} | ${passWhen(d)} | ${esc(d.reference)} |`,
		);
	}
	if (embedding.length > 0) {
		lines.push('', '### Embedding metrics', '');
		lines.push(
			'| node | what it measures | score key | reads | scale | pass when | reference behaviour matched |',
			'| --- | --- | --- | --- | --- | --- | --- |',
		);
		for (const d of embedding) {
			lines.push(
				`| <a id="eval${pascal(d.id).toLowerCase()}"></a>**${esc(d.displayName)}** | ${esc(d.description)} | \`${d.id}\` | ${reads(d)} | ${scale(d)} | ${passWhen(d)} | ${esc(d.reference)} |`,
			);
		}
	}
	lines.push('', '### LLM judges', '');
	lines.push(
		'| node | what it measures | score key | reads | scale | pass when | root-cause slot | Databricks columns and run metric | rubric |',
		'| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
	);
	for (const d of judges) {
		lines.push(
			`| <a id="judge${pascal(d.id).toLowerCase()}"></a>**${esc(d.displayName.endsWith(' Judge') ? d.displayName : `${d.displayName} Judge`)}** | ${esc(d.description)} | \`${d.id}\` | ${reads(d)} | ${scale(d)} | ${passWhen(d)} | ${slot(d)} | ${databricks(d)} | ${esc(d.reference)} |`,
		);
	}
	if (safety.length > 0) {
		lines.push('', '### Risk and safety', '');
		lines.push(
			'| score key | node | what it measures | reads | scale | pass when (default) | root-cause slot |',
			'| --- | --- | --- | --- | --- | --- | --- |',
		);
		for (const d of safety) {
			const node =
				d.scale.kind === 'severity'
					? '[Content Safety](#evalcontentsafety)'
					: `[${esc(d.displayName)}](#eval${pascal(d.id).toLowerCase()})`;
			lines.push(
				`| \`${d.id}\` | ${node} | ${esc(d.description)} | ${reads(d)} | ${scale(d)} | ${passWhen(d)} | ${slot(d)} |`,
			);
		}
	}
	// Companion Scores (Tool Calls' arguments and failed calls) have slots of their own.
	const all = [
		...metrics,
		...metrics.flatMap((m) => m.companions ?? []),
		...judges,
		...safety,
		...embedding,
	];
	lines.push('', '### Root-cause slots and router outputs', '');
	lines.push(
		'Outputs of the Root-Cause Router, in index order. Positions never change: new slots are added at the end.',
		'',
		'| output | slot | with ground truth | without ground truth | filled by | suggested fix |',
		'| --- | --- | --- | --- | --- | --- |',
	);
	const fixed: Record<string, string> = {
		Pass: 'every judge with a verdict passed',
		Incomplete:
			'a judge errored before any failure, had no model to ask, or no judge gave a verdict',
		'Custom Judge': 'a judge without its own slot failed first (your own judges)',
	};
	routerOutputNames(all).forEach((name, i) => {
		const decl = all.find((d) => d.rootCause?.slot === name);
		const rc = decl?.rootCause;
		if (!rc) {
			lines.push(`| ${i} | ${name} | | | ${fixed[name] ?? ''} | |`);
			return;
		}
		const by = all.filter((d) => d.rootCause?.slot === name).map((d) => `\`${d.id}\``);
		// The place in the default order (ranks are only relative: the agent slots rank below 1).
		const rank = (o: 'withGroundTruth' | 'withoutGroundTruth') =>
			rc.rank?.[o] !== undefined ? `#${defaultOrder(o, all).indexOf(name) + 1}` : 'after the order';
		lines.push(
			`| ${i} | \`${name}\` | ${rank('withGroundTruth')} | ${rank('withoutGroundTruth')} | ${by.join(', ')} | ${esc(rc.fix)} |`,
		);
	});
	return lines.join('\n');
}
