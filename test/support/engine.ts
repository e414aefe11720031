/**
 * Engine harness: runs real workflow JSON through n8n-core's WorkflowExecute with our node
 * classes and n8n's own nodes, headless (no database, no ~/.n8n writes).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Container } from '@n8n/di';
import { ExecutionLifecycleHooks, InstanceSettings, WorkflowExecute } from 'n8n-core';
import {
	ICredentialsHelper,
	Workflow,
	type ICredentialDataDecryptedObject,
	type ICredentials,
	type IDataObject,
	type IExecuteWorkflowInfo,
	type IHttpRequestOptions,
	type INode,
	type INodeCredentialsDetails,
	type INodeExecutionData,
	type INodeParameters,
	type INodeProperties,
	type INodeType,
	type INodeTypes,
	type IRun,
	type IRunExecutionData,
	type IVersionedNodeType,
	type IWorkflowBase,
	type IWorkflowExecuteAdditionalData,
	type IConnections,
	type IPinData,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { runCodeTask } from './code-runner';

process.env.N8N_LOG_LEVEL ??= 'silent';

const ROOT = path.resolve(__dirname, '../..');

/** n8n base nodes that our engine workflows may use, by type name. */
const BASE_NODES: Record<string, string> = {
	'n8n-nodes-base.manualTrigger': 'ManualTrigger/ManualTrigger.node.js',
	'n8n-nodes-base.noOp': 'NoOp/NoOp.node.js',
	'n8n-nodes-base.set': 'Set/Set.node.js',
	'n8n-nodes-base.if': 'If/If.node.js',
	'n8n-nodes-base.merge': 'Merge/Merge.node.js',
	'n8n-nodes-base.splitInBatches': 'SplitInBatches/SplitInBatches.node.js',
	// JavaScript runs in ./code-runner.ts, a stand-in for n8n's task runner.
	'n8n-nodes-base.code': 'Code/Code.node.js',
};

type NodeClass = new () => INodeType | IVersionedNodeType;

/** Our node classes, read from package.json's `n8n.nodes` list, loaded from source (ts-jest). */
function ourNodeTypes(): Map<string, INodeType | IVersionedNodeType> {
	const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
		name: string;
		n8n: { nodes: string[] };
	};
	const map = new Map<string, INodeType | IVersionedNodeType>();
	for (const built of pkg.n8n.nodes) {
		const source = path.join(ROOT, built.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
		// As n8n's loader does: the class named like the file.
		const Cls = (require(source) as Record<string, NodeClass>)[path.basename(source, '.node.ts')];
		if (typeof Cls !== 'function') throw new Error(`${source} does not export its node class`);
		const instance = new Cls();
		map.set(`${pkg.name}.${instance.description.name}`, instance);
	}
	return map;
}

/** Test-only node types (sub-nodes that stand in for n8n's AI nodes). */
const TEST_NODES: Record<string, string> = {
	'test.chatModel': 'nodes/TestChatModel.node.ts',
	'test.paramProbe': 'nodes/TestParamProbe.node.ts',
	'test.embeddings': 'nodes/TestEmbeddings.node.ts',
};

class HarnessNodeTypes implements INodeTypes {
	private readonly cache = new Map<string, INodeType | IVersionedNodeType>();

	constructor(private readonly ours: Map<string, INodeType | IVersionedNodeType>) {}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const hit = this.ours.get(nodeType) ?? this.cache.get(nodeType);
		if (hit) return hit;
		const testRel = TEST_NODES[nodeType];
		if (testRel) {
			const file = path.join(__dirname, testRel);
			const Cls = (require(file) as Record<string, NodeClass>)[path.basename(file, '.node.ts')];
			const inst = new Cls();
			this.cache.set(nodeType, inst);
			return inst;
		}
		const rel = BASE_NODES[nodeType];
		if (!rel) throw new Error(`Engine harness: unknown node type ${nodeType}`);
		const mod = require(path.join(ROOT, 'node_modules/n8n-nodes-base/dist/nodes', rel)) as Record<
			string,
			NodeClass
		>;
		const Cls = Object.values(mod).find((v) => typeof v === 'function') as NodeClass;
		const inst = new Cls();
		this.cache.set(nodeType, inst);
		return inst;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		const t = this.getByName(nodeType);
		if ('nodeVersions' in t) {
			const v = version ?? t.currentVersion;
			return t.nodeVersions[v] ?? t.nodeVersions[t.currentVersion];
		}
		return t;
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

/** In-memory credentials keyed by credential type; never written anywhere. */
class MemoryCredentialsHelper extends ICredentialsHelper {
	constructor(private readonly data: Record<string, ICredentialDataDecryptedObject>) {
		super();
	}
	getParentTypes(): string[] {
		return [];
	}
	isCredentialUsableByNode(): boolean {
		return true;
	}
	async authenticate(
		_c: ICredentialDataDecryptedObject,
		_t: string,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return requestOptions;
	}
	async preAuthentication(): Promise<undefined> {
		return undefined;
	}
	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}
	async getCredentials(_d: INodeCredentialsDetails, type: string): Promise<ICredentials> {
		throw new Error(`getCredentials(${type}) is not supported by the harness`);
	}
	async getDecrypted(
		_a: IWorkflowExecuteAdditionalData,
		_n: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const found = this.data[type];
		if (!found) throw new Error(`No test credentials of type ${type}`);
		return found;
	}
	async updateCredentials(): Promise<void> {}
	async updateCredentialsOauthTokenData(): Promise<void> {}
	getCredentialsProperties(): INodeProperties[] {
		return [];
	}
}

let instanceStubbed = false;
/** Stub InstanceSettings so the engine never creates ~/.n8n or an encryption key. */
function stubInstanceSettings(): void {
	if (instanceStubbed) return;
	const stub = {
		n8nFolder: path.join(ROOT, '.n8n-local'),
		staticCacheDir: path.join(ROOT, '.n8n-local/cache'),
		customExtensionDir: path.join(ROOT, '.n8n-local/custom'),
		nodesDownloadDir: path.join(ROOT, '.n8n-local/nodes'),
		instanceId: 'engine-test-instance',
		derivedInstanceId: 'engine-test-instance',
		hmacSignatureSecret: 'engine-test-secret',
		instanceType: 'main',
		instanceRole: 'leader',
		hostId: 'engine-test-host',
		isMultiMain: false,
		isSingleMain: true,
		isWorker: false,
		isLeader: true,
		isFollower: false,
		encryptionKey: 'engine-test-encryption-key',
		isDocker: false,
	};
	Container.set(InstanceSettings, stub as unknown as InstanceSettings);
	instanceStubbed = true;
}

export interface WorkflowJson {
	name?: string;
	nodes: INode[];
	connections: IConnections;
	pinData?: IPinData;
	settings?: IDataObject;
}

/** A node of a hand-wired workflow: its id is its name, at the origin (positions do not matter). */
export function workflowNode(
	name: string,
	type: string,
	parameters: INodeParameters = {},
	typeVersion = 1,
): INode {
	return { id: name, name, type, typeVersion, position: [0, 0], parameters };
}

/**
 * Start (a Manual Trigger) -> the node under test, named `Node`: the workflow most engine tests
 * need. Feed it with `runWorkflow(..., { startItems })`.
 */
export function singleNode(type: string, parameters: INodeParameters = {}): WorkflowJson {
	return {
		nodes: [
			{
				id: 's',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{ id: 'n', name: 'Node', type, typeVersion: 1, position: [200, 0], parameters },
		],
		connections: { Start: { main: [[{ node: 'Node', type: 'main', index: 0 }]] } },
	};
}

/** One node of a {@link chain}: its name, type (short types get the package prefix) and settings. */
export interface ChainNode {
	name: string;
	type: string;
	parameters?: INodeParameters;
	credentials?: INode['credentials'];
}

/**
 * Start (a Manual Trigger) -> the given nodes, each feeding the next on its first output: the
 * straight pipelines engine tests run. A type without a dot is one of ours (`judgeCoherence`).
 */
export function chain(...nodes: ChainNode[]): WorkflowJson {
	const all: ChainNode[] = [{ name: 'Start', type: 'n8n-nodes-base.manualTrigger' }, ...nodes];
	const connections: IConnections = {};
	all.slice(0, -1).forEach((n, i) => {
		connections[n.name] = { main: [[{ node: all[i + 1].name, type: 'main', index: 0 }]] };
	});
	return {
		nodes: all.map((n, i) => ({
			id: `c${i}`,
			name: n.name,
			type: n.type.includes('.') ? n.type : `n8n-nodes-rag-eval.${n.type}`,
			typeVersion: 1,
			position: [i * 200, 0] as [number, number],
			parameters: n.parameters ?? {},
			...(n.credentials ? { credentials: n.credentials } : {}),
		})),
		connections,
	};
}

export interface EngineRun {
	run: IRun;
	/** The id n8n would have given this execution (`engine-test-execution-<n>`). */
	executionId: string;
	/** JSON of the items a node emitted on one output (first run of the node). */
	output(nodeName: string, outputIndex?: number): IDataObject[];
	/** Full items (json, binary, pairedItem) on one output. */
	items(nodeName: string, outputIndex?: number): INodeExecutionData[];
	/** Number of outputs the node produced data for. */
	outputCount(nodeName: string): number;
	/** Error message of a node, if it failed. */
	nodeError(nodeName: string): string | undefined;
	executedNodes(): string[];
}

export interface RunOptions {
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** Items fed to the start node (defaults to one empty item). */
	startItems?: INodeExecutionData[];
	/** Stored executions by id, as `getExecutionDataById` returns them (sub-workflow runs). */
	executions?: Record<string, IRunExecutionData>;
	/** Cancel the execution (as the editor's Stop button does) once this settles. */
	cancelWhen?: Promise<unknown>;
	/**
	 * The workflow's static data, mutated in place by the run (pass the same object to the next
	 * run, as n8n keeps it between production executions). Default: a fresh empty object.
	 */
	staticData?: IDataObject;
	/** Execution mode (default 'manual', an editor run; 'trigger' or 'webhook' for production). */
	mode?: WorkflowExecuteMode;
}

/** Read a workflow file relative to the repo's test folder or absolute. */
export function readWorkflow(file: string): WorkflowJson {
	const p = path.isAbsolute(file) ? file : path.join(ROOT, 'test', file);
	return JSON.parse(readFileSync(p, 'utf8')) as WorkflowJson;
}

let nodeTypesSingleton: HarnessNodeTypes | undefined;
let executionCounter = 0;

/** Execute a workflow from its trigger (the first node without inputs) to the end. */
export async function runWorkflow(wf: WorkflowJson, opts: RunOptions = {}): Promise<EngineRun> {
	stubInstanceSettings();
	nodeTypesSingleton ??= new HarnessNodeTypes(ourNodeTypes());
	const nodeTypes = nodeTypesSingleton;
	const workflow = new Workflow({
		id: 'engine-test',
		name: wf.name ?? 'engine test',
		nodes: wf.nodes,
		connections: wf.connections,
		nodeTypes,
		active: false,
		settings: wf.settings,
		staticData: opts.staticData ?? {},
	});
	const workflowData: IWorkflowBase = {
		id: 'engine-test',
		name: wf.name ?? 'engine test',
		active: false,
		activeVersionId: null,
		isArchived: false,
		nodes: wf.nodes,
		connections: wf.connections,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as IWorkflowBase;
	// Every run its own execution id, as n8n gives one (nodes key per-execution state on it).
	const executionId = `engine-test-execution-${++executionCounter}`;
	const mode = opts.mode ?? 'manual';
	const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowData);
	let finished: (r: IRun) => void = () => {};
	const done = new Promise<IRun>((resolve) => (finished = resolve));
	hooks.addHandler('workflowExecuteAfter', (fullRunData: IRun) => finished(fullRunData));

	const additionalData = {
		hooks,
		executionId,
		credentialsHelper: new MemoryCredentialsHelper(opts.credentials ?? {}),
		executeWorkflow: async (_info: IExecuteWorkflowInfo) => {
			throw new Error('Sub-workflows are not supported by the engine harness');
		},
		getRunExecutionData: async (id: string) => opts.executions?.[id],
		getRuntimeCredential: async () => undefined,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		formBaseUrl: 'http://127.0.0.1:5678/form',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		formTestBaseUrl: 'http://127.0.0.1:5678/form-test',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		mcpBaseUrl: 'http://127.0.0.1:5678/mcp',
		mcpTestBaseUrl: 'http://127.0.0.1:5678/mcp-test',
		variables: {},
		logAiEvent: () => {},
		// The Code node's JavaScript runs in-process (./code-runner.ts), as n8n's runner would run it.
		startRunnerTask: runCodeTask,
	} as unknown as IWorkflowExecuteAdditionalData;

	const startNode = wf.nodes.find((n) => {
		const t = nodeTypes.getByNameAndVersion(n.type, n.typeVersion);
		return (t.description.inputs as unknown[]).length === 0;
	});
	if (!startNode) throw new Error('Engine harness: workflow has no trigger node');

	const execute = new WorkflowExecute(additionalData, mode);
	const pinData: IPinData | undefined = opts.startItems
		? { [startNode.name]: opts.startItems }
		: wf.pinData;
	const running = execute.run({ workflow, startNode, pinData });
	void opts.cancelWhen?.then(() => running.cancel());
	// A cancelled run never resolves `running`; its final data comes through the after-hook.
	const result = opts.cancelWhen ? await Promise.race([running, done]) : await running;
	await done;
	const runData = result.data.resultData.runData;

	const mainOf = (name: string): (INodeExecutionData[] | null)[] => {
		const task = runData[name]?.[0];
		if (!task)
			throw new Error(`Node "${name}" did not run. Ran: ${Object.keys(runData).join(', ')}`);
		return task.data?.main ?? [];
	};
	return {
		run: result,
		executionId,
		items: (name, outputIndex = 0) => mainOf(name)[outputIndex] ?? [],
		output: (name, outputIndex = 0) => (mainOf(name)[outputIndex] ?? []).map((i) => i.json),
		outputCount: (name) => mainOf(name).length,
		nodeError: (name) => runData[name]?.[0]?.error?.message,
		executedNodes: () => Object.keys(runData),
	};
}
