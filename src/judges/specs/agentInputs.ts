/**
 * Building blocks of the agent judges (docs/agents.md): the inputs that hold what an agent did and
 * what it had (read by the one row reader, src/core/inputs.ts, into the record's `ToolCall` and
 * `ToolDefinition` shapes, so an AI Agent's intermediateSteps, OpenAI or Azure messages and n8n
 * execution data all arrive alike), the expected outcome, and the checks the agent rubrics share.
 * Tool arguments, results and definitions are untrusted text: the prompts show them only through
 * their placeholders, inside the per-call nonce-delimited data blocks, like every other row field.
 */
import type { InputDecl, RootCauseDecl } from '../../core/types';
import type { ToolCall, ToolDefinition } from '../../record/schema';
import { n8nToolName } from '../../record/toolcalls';
import { historyInput } from './common';

/** The calls the agent made (`tool_calls`), in order, with their results or errors. */
export function toolCallsInput(required: boolean): InputDecl {
	return {
		name: 'toolCalls',
		displayName: 'Tool Calls',
		field: 'tool_calls',
		kind: 'toolCalls',
		required,
		blankIsMissing: true,
		description:
			"The calls the agent made, with their results or errors: the record's tool_calls, an AI Agent's intermediateSteps, OpenAI or Azure messages, or a list of {name, arguments, result}",
	};
}

/** The tools the agent had (`tool_definitions`): name, description, parameter schema. */
export function toolDefinitionsInput(required: boolean): InputDecl {
	return {
		name: 'toolDefinitions',
		displayName: 'Tool Definitions',
		field: 'tool_definitions',
		kind: 'toolDefinitions',
		required,
		blankIsMissing: true,
		description:
			'The tools the agent could call: a list of {name, description, parameters} (OpenAI, MCP and LangChain shapes are read too)',
	};
}

/** The conversation before the judged request: the agent's system prompt and earlier turns. */
export const conversationInput: InputDecl = {
	...historyInput,
	description:
		'Earlier turns of the conversation, the agent system prompt first when there is one: a list of {role, content}',
};

/** What the agent should have achieved (`expected_outcome`; DeepEval's `expected_outcome`). */
export const expectedOutcomeInput: InputDecl = {
	name: 'expectedOutcome',
	displayName: 'Expected Outcome',
	field: 'expected_outcome',
	kind: 'text',
	required: false,
	blankIsMissing: true,
	description:
		'The end state the agent should reach (for example "a table for two is booked at 8 pm"); DeepEval expected_outcome, Ragas reference',
};

/**
 * Why a row's calls cannot be judged against its definitions (Azure skips such rows): a call to a
 * tool the definitions do not list, compared by n8n's tool-name rule ("Order Lookup" is
 * `Order_Lookup`). Null when every call's tool is defined.
 */
export function undefinedTool(calls: ToolCall[], definitions: ToolDefinition[]): string | null {
	const known = new Set(definitions.map((d) => n8nToolName(d.name)));
	const i = calls.findIndex((c) => !known.has(n8nToolName(c.name)));
	if (i < 0) return null;
	const names = definitions.map((d) => d.name).join(', ');
	return `tool_calls[${i}] calls "${calls[i].name}", which tool_definitions does not define (defined: ${names}): give the definitions of every tool the agent called`;
}

/**
 * Root-cause ranks of the agent judges: after the three Tool Calls slots (-3 to -1: what the agent
 * did, step by step) and before the seed's own judges (1 to 4), in both orders, so a row is blamed
 * on its first broken step, then on what the agent made of the task, then on retrieval and the
 * answer. Ranks are only compared, so the seed's numbers stay as the seed lists them.
 */
export const AGENT_RANK = {
	toolCallAccuracy: -0.9,
	intentResolution: -0.8,
	taskAdherence: -0.7,
	taskCompletion: -0.6,
	goalAccuracy: -0.5,
} as const;

/** A rank in both of seed 001's orders. */
export function bothOrders(rank: number): RootCauseDecl['rank'] {
	return { withGroundTruth: rank, withoutGroundTruth: rank };
}
