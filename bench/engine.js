'use strict';
// The engine harness for benches: runs a workflow's nodes through n8n-core's WorkflowExecute in
// this process (no database, no CLI, no ~/.n8n writes), with our node classes from dist/ and n8n's
// own base nodes, as test/support/engine.ts does for the tests. Per-node wall time is n8n's own
// `executionTime`; per-node CPU time is this process's between n8n's nodeExecuteBefore and
// nodeExecuteAfter hooks (nodes run one at a time).
const path = require('node:path');
const { ROOT } = require('./env');

process.env.N8N_LOG_LEVEL ??= 'silent';

const BASE_NODES = {
	'n8n-nodes-base.manualTrigger': 'ManualTrigger/ManualTrigger.node.js',
	'n8n-nodes-base.noOp': 'NoOp/NoOp.node.js',
};

function ourNodeTypes() {
	const pkg = require(path.join(ROOT, 'package.json'));
	const map = new Map();
	for (const built of pkg.n8n.nodes) {
		const file = path.join(ROOT, built);
		const Cls = require(file)[path.basename(file, '.node.js')];
		const instance = new Cls();
		map.set(`${pkg.name}.${instance.description.name}`, instance);
	}
	return map;
}

let engine;
function load() {
	if (engine) return engine;
	const { Container } = require('@n8n/di');
	const n8nCore = require('n8n-core');
	const { ICredentialsHelper, Workflow } = require('n8n-workflow');
	Container.set(n8nCore.InstanceSettings, {
		n8nFolder: path.join(ROOT, '.n8n-local'),
		staticCacheDir: path.join(ROOT, '.n8n-local/cache'),
		customExtensionDir: path.join(ROOT, '.n8n-local/custom'),
		nodesDownloadDir: path.join(ROOT, '.n8n-local/nodes'),
		instanceId: 'bench-instance',
		derivedInstanceId: 'bench-instance',
		hmacSignatureSecret: 'bench-secret',
		instanceType: 'main',
		instanceRole: 'leader',
		hostId: 'bench-host',
		isMultiMain: false,
		isSingleMain: true,
		isWorker: false,
		isLeader: true,
		isFollower: false,
		encryptionKey: 'bench-encryption-key',
		isDocker: false,
	});
	const ours = ourNodeTypes();
	const cache = new Map();
	const nodeTypes = {
		getByName(type) {
			const hit = ours.get(type) ?? cache.get(type);
			if (hit) return hit;
			const rel = BASE_NODES[type];
			if (!rel) throw new Error(`bench engine: unknown node type ${type}`);
			const mod = require(path.join(ROOT, 'node_modules/n8n-nodes-base/dist/nodes', rel));
			const Cls = Object.values(mod).find((v) => typeof v === 'function');
			const inst = new Cls();
			cache.set(type, inst);
			return inst;
		},
		getByNameAndVersion(type, version) {
			const t = this.getByName(type);
			if ('nodeVersions' in t) return t.nodeVersions[version ?? t.currentVersion];
			return t;
		},
		getKnownTypes: () => ({}),
	};
	class MemoryCredentials extends ICredentialsHelper {
		constructor(data) {
			super();
			this.data = data;
		}
		getParentTypes() {
			return [];
		}
		isCredentialUsableByNode() {
			return true;
		}
		async authenticate(_c, _t, requestOptions) {
			return requestOptions;
		}
		async preAuthentication() {}
		async runPreAuthentication() {}
		async getCredentials() {
			throw new Error('not supported by the bench engine');
		}
		async getDecrypted(_a, _n, type) {
			return this.data[type];
		}
		async updateCredentials() {}
		async updateCredentialsOauthTokenData() {}
		getCredentialsProperties() {
			return [];
		}
	}
	engine = { n8nCore, Workflow, nodeTypes, MemoryCredentials };
	return engine;
}

let executions = 0;

/**
 * Runs `wf` ({ nodes, connections }) from its first node with `startItems` pinned on it.
 * Resolves with { run, nodes: { name: { ms, cpuMs, items } } }.
 */
async function runWorkflow(wf, { credentials = {}, startItems }) {
	const { n8nCore, Workflow, nodeTypes, MemoryCredentials } = load();
	const workflow = new Workflow({
		id: 'bench',
		name: 'bench',
		nodes: wf.nodes,
		connections: wf.connections,
		nodeTypes,
		active: false,
		settings: { executionOrder: 'v1' },
		staticData: {},
	});
	const base = { id: 'bench', name: 'bench', active: false, nodes: wf.nodes };
	const executionId = `bench-execution-${++executions}`;
	const hooks = new n8nCore.ExecutionLifecycleHooks('manual', executionId, {
		...base,
		connections: wf.connections,
		createdAt: new Date(),
		updatedAt: new Date(),
	});
	const cpu = {};
	let c0;
	hooks.addHandler('nodeExecuteBefore', () => {
		c0 = process.cpuUsage();
	});
	hooks.addHandler('nodeExecuteAfter', (name) => {
		const c = process.cpuUsage(c0);
		cpu[name] = (c.user + c.system) / 1000;
	});
	const url = 'http://127.0.0.1:5678';
	const additionalData = {
		hooks,
		executionId,
		credentialsHelper: new MemoryCredentials(credentials),
		executeWorkflow: async () => {
			throw new Error('sub-workflows are not supported by the bench engine');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		currentNodeExecutionIndex: 0,
		restApiUrl: `${url}/rest`,
		instanceBaseUrl: `${url}/`,
		formBaseUrl: `${url}/form`,
		formWaitingBaseUrl: `${url}/form-waiting`,
		formTestBaseUrl: `${url}/form-test`,
		webhookBaseUrl: `${url}/webhook`,
		webhookWaitingBaseUrl: `${url}/webhook-waiting`,
		webhookTestBaseUrl: `${url}/webhook-test`,
		mcpBaseUrl: `${url}/mcp`,
		mcpTestBaseUrl: `${url}/mcp-test`,
		variables: {},
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('task runners are not available in the bench engine');
		},
	};
	const execute = new n8nCore.WorkflowExecute(additionalData, 'manual');
	const startNode = wf.nodes[0];
	const run = await execute.run({ workflow, startNode, pinData: { [startNode.name]: startItems } });
	const nodes = {};
	for (const [name, tasks] of Object.entries(run.data.resultData.runData)) {
		const t = tasks[0];
		nodes[name] = {
			ms: t.executionTime,
			cpuMs: cpu[name],
			items: (t.data?.main ?? []).reduce((a, o) => a + (o?.length ?? 0), 0),
			error: t.error?.message,
		};
	}
	return { run, nodes };
}

module.exports = { runWorkflow };
