/**
 * Typed access for the tests to the local stand-in for n8n's public API (the server itself is
 * plain JS in ./n8n-api-server-cli.js, so the bench and E2E runs use the same one).
 */
import type { Server } from 'node:http';

/** An execution as the public API returns it. */
export type ApiExecutionJson = Record<string, unknown> & { id: string; status: string };

export interface BuildOptions {
	workflowId?: string;
	startedMs?: number;
	status?: 'success' | 'error';
}

export interface Faults {
	/** Executions listed without `data` (the workflow did not save it). */
	noData: Set<string>;
	/** Executions whose data n8n leaves out as too large to read. */
	tooLarge: Set<string>;
	/** Executions listed but gone (404) when read one by one. */
	prunedOnRead: Set<string>;
	/** The list request (1-based) that answers HTTP 500; 0 = none. */
	failPage: number;
	latencyMs: number;
	/** Answer HTTP 400 to `startedAfter`, as n8n before 2.x does. */
	noStartedAfter: boolean;
}

export interface ServerStats {
	requests: number;
	listRequests: number;
	getRequests: number;
	unauthorized: number;
	paths: string[];
}

export interface FakeN8nApi {
	server: Server;
	stats: ServerStats;
	faults: Faults;
	apiKey: string;
	add(e: ApiExecutionJson): void;
	remove(id: string): void;
	addWorkflow(w: { id: string; name: string }): void;
	removeWorkflow(id: string): void;
	readonly size: number;
	listen(port?: number): Promise<string>;
	close(): Promise<void>;
}

export interface ServerOptions {
	apiKey?: string;
	workflows?: { id: string; name: string }[];
	executions?: ApiExecutionJson[];
	faults?: Partial<Omit<Faults, 'noData' | 'tooLarge' | 'prunedOnRead'>> & {
		noData?: Iterable<string>;
		tooLarge?: Iterable<string>;
		prunedOnRead?: Iterable<string>;
	};
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const impl = require('./n8n-api-server-cli.js') as {
	createN8nApiServer(o?: ServerOptions): FakeN8nApi;
	agentExecution(id: number | string, o?: BuildOptions): ApiExecutionJson;
	chainExecution(id: number | string, o?: BuildOptions): ApiExecutionJson;
	httpExecution(id: number | string, o?: BuildOptions): ApiExecutionJson;
	summaryOf(e: ApiExecutionJson): ApiExecutionJson;
};

export const createN8nApiServer = impl.createN8nApiServer;
/** An AI Agent execution (chat trigger, two model calls, an HTTP tool, a vector-store tool). */
export const agentExecution = impl.agentExecution;
/** A retrieval QA chain behind a webhook. */
export const chainExecution = impl.chainExecution;
/** A model called with an HTTP Request node. */
export const httpExecution = impl.httpExecution;
export const summaryOf = impl.summaryOf;
