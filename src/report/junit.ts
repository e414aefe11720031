/**
 * The JUnit XML report for CI: one testsuite per metric and one testcase per row, a coverage
 * suite, and a `regression-gate` suite when a gate result is given. Text is XML-escaped.
 */

import { coverageText } from '../core/display';
import {
	coverageFacts,
	displayText,
	firstErrors,
	manifestFacts,
	fmt,
	fmtP,
	metricEntries,
	pct,
	redactSecrets,
	type ReportInput,
	runVerdict,
} from './model';

// XML 1.0 forbids most control characters even when escaped, so they are dropped.
function xml(text: string): string {
	return redactSecrets(text)
		.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&apos;');
}

interface JUnitCase {
	name: string;
	classname: string;
	outcome: 'pass' | 'failure' | 'error' | 'skipped';
	message: string;
	detail: string;
	/** Written out for a passing case too (as its system-out): a run-level figure's coverage. */
	output?: string;
}

/**
 * JUnit XML for CI: one testsuite per metric, one testcase per row (failure = the metric failed,
 * error = the judge errored, skipped = not applicable); without rows, one testcase per metric.
 * A gate result adds a `regression-gate` suite with one testcase per metric.
 */
export function junitReport(input: ReportInput): string {
	const suites = new Map<string, JUnitCase[]>();
	const add = (suite: string, c: JUnitCase): void => {
		const list = suites.get(suite) ?? [];
		list.push(c);
		suites.set(suite, list);
	};
	if (input.rows?.length) {
		input.rows.forEach((row, index) => {
			// Computed once per row, not once per metric.
			const id =
				row.request_id === undefined || row.request_id === null
					? `row ${index + 1}`
					: displayText(row.request_id, 200);
			for (const [metric, s] of Object.entries(row.eval ?? {})) {
				if (!s) continue;
				const value = typeof s.value === 'boolean' ? (s.value ? 'yes' : 'no') : fmt(s.value);
				const outcome =
					s.status === 'error'
						? 'error'
						: s.status === 'not_applicable'
							? 'skipped'
							: s.pass === false
								? 'failure'
								: 'pass';
				add(metric, {
					name: id,
					classname: `rag-eval.${metric}`,
					outcome,
					message:
						outcome === 'error'
							? displayText(s.error ?? 'judge error', 500)
							: `${metric} = ${value}${s.threshold !== undefined ? ` (threshold ${s.threshold})` : ''}`,
					detail: displayText(s.reason ?? '', 4000),
				});
			}
		});
	} else {
		for (const [name, m] of metricEntries(input.summary)) {
			// The figure with the rows behind it: a rate over the scored rows never stands alone.
			const message = `${name} = ${fmt(m.value)} (${coverageText(m, input.summary.rows)})`;
			add(name, {
				name: 'aggregate',
				classname: `rag-eval.${name}`,
				outcome: m.measured > 0 ? 'pass' : 'skipped',
				message,
				detail: '',
				output: message,
			});
		}
	}
	const cov = coverageFacts(input);
	if (cov) {
		const short = runVerdict(input) === 'INCOMPLETE';
		add('coverage', {
			name: 'rows judged',
			classname: 'rag-eval.coverage',
			outcome: short ? 'failure' : 'pass',
			message: `${cov.judged} of ${cov.of} rows judged (${pct(cov.share)}; minimum ${pct(cov.minimum)})`,
			detail: short ? [...manifestFacts(input), ...firstErrors(input)].join('\n') : '',
		});
	}
	for (const r of input.gate?.table ?? []) {
		add('regression-gate', {
			name: r.metric,
			classname: 'rag-eval.regression-gate',
			outcome:
				r.verdict === 'regressed'
					? 'failure'
					: r.verdict === 'insufficient_data'
						? 'skipped'
						: 'pass',
			message: `${r.verdict}: ${fmt(r.baseline)} -> ${fmt(r.current)} (p=${fmtP(r.pAdjusted)}, ${r.test})`,
			detail: r.note,
		});
	}
	let total = 0;
	let failures = 0;
	let errors = 0;
	let skipped = 0;
	const body: string[] = [];
	for (const [suite, cases] of suites) {
		const f = cases.filter((c) => c.outcome === 'failure').length;
		const e = cases.filter((c) => c.outcome === 'error').length;
		const s = cases.filter((c) => c.outcome === 'skipped').length;
		total += cases.length;
		failures += f;
		errors += e;
		skipped += s;
		body.push(
			`  <testsuite name="${xml(suite)}" tests="${cases.length}" failures="${f}" errors="${e}" skipped="${s}">`,
		);
		for (const c of cases) {
			const open = `    <testcase name="${xml(c.name)}" classname="${xml(c.classname)}"`;
			if (c.outcome === 'pass') {
				body.push(
					c.output ? `${open}><system-out>${xml(c.output)}</system-out></testcase>` : `${open}/>`,
				);
				continue;
			}
			const tag = c.outcome;
			const inner =
				tag === 'skipped'
					? `<skipped message="${xml(c.message)}"/>`
					: `<${tag} message="${xml(c.message)}" type="${tag === 'error' ? 'JudgeError' : 'EvalFailure'}">${xml(c.detail)}</${tag}>`;
			body.push(`${open}>${inner}</testcase>`);
		}
		body.push('  </testsuite>');
	}
	return [
		'<?xml version="1.0" encoding="UTF-8"?>',
		`<testsuites name="${xml(input.title ?? 'rag-eval')}" tests="${total}" failures="${failures}" errors="${errors}" skipped="${skipped}">`,
		...body,
		'</testsuites>',
		'',
	].join('\n');
}
