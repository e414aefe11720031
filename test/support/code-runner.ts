/**
 * A stand-in for n8n's JavaScript task runner, so n8n's own Code node (n8n-nodes-base.code) runs in
 * the engine harness. n8n sends a Code node's JavaScript to a separate runner process
 * (`additionalData.startRunnerTask`); here the same job runs in-process, the way the runner does
 * it: the code wrapped in an async function, in a fresh `node:vm` context holding the workflow data
 * proxy (`$input`, `$json`, `$('Node')`, ...) and `items` / `item`. The Code node itself (its
 * parameters, result validation and item normalising) is n8n's, unchanged.
 *
 * Not a sandbox: test workflows only. JavaScript only (Python needs n8n's Python runner).
 */
import { runInNewContext } from 'node:vm';
import { getAdditionalKeys } from 'n8n-core';
import {
	WorkflowDataProxy,
	type EnvProviderState,
	type IExecuteData,
	type INodeExecutionData,
	type INodeParameters,
	type IRunExecutionData,
	type IWorkflowExecuteAdditionalData,
	type Workflow,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

/** What the Code node sends with a JavaScript job (JsTaskRunnerSandbox). */
interface JsJobSettings {
	code: string;
	nodeMode: 'runOnceForAllItems' | 'runOnceForEachItem';
	chunk?: { startIndex: number; count: number };
}

/** The runner's answer, as `startJob` returns it to the Code node. */
type JobResult = { ok: true; result: unknown; customData?: Record<string, string> };

const wrap = (code: string) =>
	`globalThis.global = globalThis; module.exports = async function VmCodeWrapper() {${code}\n}()`;

/** `additionalData.startRunnerTask` for JavaScript jobs; its parameters are n8n-core's. */
export async function runCodeTask(
	additionalData: IWorkflowExecuteAdditionalData,
	jobType: string,
	settings: unknown,
	_executeFunctions: unknown,
	_inputData: unknown,
	_node: unknown,
	workflow: Workflow,
	runExecutionData: IRunExecutionData,
	runIndex: number,
	_itemIndex: number,
	activeNodeName: string,
	connectionInputData: INodeExecutionData[],
	siblingParameters: INodeParameters,
	mode: WorkflowExecuteMode,
	envProviderState: EnvProviderState,
	executeData?: IExecuteData,
): Promise<JobResult> {
	if (jobType !== 'javascript')
		throw new Error(`The engine harness runs JavaScript Code nodes only, not ${jobType}`);
	const { code, nodeMode, chunk } = settings as JsJobSettings;
	const proxyAt = (index: number) =>
		new WorkflowDataProxy(
			workflow,
			runExecutionData,
			runIndex,
			index,
			activeNodeName,
			connectionInputData,
			siblingParameters,
			mode,
			getAdditionalKeys(additionalData, mode, runExecutionData),
			executeData,
			undefined,
			{},
			undefined,
			envProviderState,
		).getDataProxy();
	const run = (context: Record<string, unknown>) =>
		runInNewContext(wrap(code), { module: {}, console, ...context }) as Promise<unknown>;

	if (nodeMode === 'runOnceForAllItems') {
		const proxy = proxyAt(0);
		const result = await run({ ...proxy, items: connectionInputData });
		return { ok: true, result: result ?? [] };
	}
	const start = chunk?.startIndex ?? 0;
	const end = Math.min(connectionInputData.length, start + (chunk?.count ?? Infinity));
	const out: unknown[] = [];
	for (let index = start; index < end; index++) {
		const result = await run({ ...proxyAt(index), item: connectionInputData[index] });
		if (!result) continue;
		// As the runner does: each item's result (a bare object is its json), paired with its item.
		const item = typeof result === 'object' && 'json' in result ? result : { json: result };
		out.push({ ...item, pairedItem: { item: index } });
	}
	return { ok: true, result: out };
}
