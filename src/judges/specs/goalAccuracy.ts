/**
 * Agent Goal Accuracy (Ragas `AgentGoalAccuracyWithReference` / `AgentGoalAccuracyWithoutReference`,
 * `ragas/metrics/_goal_accuracy.py`): binary, 1 when the agent reached the goal. Ragas reads the
 * whole workflow (human, AI and tool messages), infers the user's goal and the end state, then
 * compares the end state with the reference outcome (with reference) or with the inferred goal
 * (without). We ask for the same two steps in one call, in that order (goal, end state, then the
 * comparison), so a row costs one call where Ragas makes two; the inferred goal and end state are
 * kept in details. The reference is the row's `expected_outcome` (DeepEval's `expected_outcome`),
 * else its `expected_response` (where Ragas' `reference` column lands in the record).
 */
import { z } from 'zod';
import { judgeOutput } from '../output';
import { reasonText, yesNo } from '../parse';
import type { JudgeDecl, JudgeOutput } from '../types';
import { expectedResponseInput } from './agent';
import {
	AGENT_RANK,
	bothOrders,
	conversationInput,
	expectedOutcomeInput,
	toolCallsInput,
} from './agentInputs';
import { BINARY, requestInput, responseInput } from './common';
import type { RootCauseDecl } from '../../core/types';

/** Parsed output of both goal-accuracy judges. */
export interface GoalVerdict {
	user_goal: string;
	end_state: string;
	reason: string;
	verdict: 'yes' | 'no';
}

function goalOutput(name: string, against: string): JudgeOutput<GoalVerdict> {
	return judgeOutput(
		name,
		z.object({
			user_goal: z.string().describe('the task or objective the user wanted to achieve'),
			end_state: z.string().describe('the final outcome the workflow arrived at'),
			reason: reasonText().describe(`whether the end state matches ${against}`),
			verdict: yesNo(),
		}),
	);
}

/** Shared by both: one slot, "the agent did not reach the goal". */
const GOAL_SLOT: RootCauseDecl = {
	slot: 'agent_goal_accuracy',
	rank: bothOrders(AGENT_RANK.goalAccuracy),
	output: 26,
	fix: 'The agent ended somewhere other than the goal: compare the end state in the details with the goal, then check the tool results it relied on and whether it stopped early or drifted to another task.',
};

const WORKFLOW = [
	'The workflow is the conversation: its history, the last request, the tool calls the agent made (with their results or errors, in order) and its final reply.',
	'First state the user goal: what the user wanted achieved, over the whole conversation. Then state the end state: what actually holds at the end, judging by the tool results and the reply (a claim no tool result supports is not an end state).',
].join('\n');

const inputs = [conversationInput, requestInput(true), toolCallsInput(false), responseInput];

const details = (p: GoalVerdict) => ({ userGoal: p.user_goal, endState: p.end_state });

/** Agent Goal Accuracy with a reference outcome. */
export const agentGoalAccuracy: JudgeDecl<GoalVerdict> = {
	id: 'agent_goal_accuracy',
	order: 250,
	version: '1',
	displayName: 'Agent Goal Accuracy',
	description:
		"Says yes when the agent's end state is the expected outcome (the row's expected_outcome, else its expected response)",
	reference:
		'Ragas AgentGoalAccuracyWithReference: the workflow (user_input) and the reference outcome; binary, 1 when the end state matches the reference',
	anchorNames: ['AgentGoalAccuracyWithReference', 'agent_goal_accuracy'],
	inputs: [
		...inputs,
		expectedOutcomeInput,
		{
			...expectedResponseInput,
			description: 'The reference when no expected outcome is given (Ragas reference)',
		},
	],
	params: [],
	scale: BINARY,
	threshold: { default: 1, direction: 'higher' },
	turnRule: 'last',
	rootCause: GOAL_SLOT,
	databricks: {
		column: 'agent/llm_judged/agent_goal_accuracy/rating',
		rationaleColumn: 'agent/llm_judged/agent_goal_accuracy/rationale',
		runMetric: 'agent/llm_judged/agent_goal_accuracy/rating/percentage',
	},
	prompt: {
		system: [
			'You decide whether an AI agent reached the outcome it was expected to reach.',
			WORKFLOW,
			'Then compare the end state with the expected outcome (or, when none is given, the reference answer): verdict "yes" when they are the same outcome, "no" when they differ. Details the expected outcome leaves open may differ (expected "a table at any Chinese restaurant at 8 pm", end state "a table at Jade Palace at 8 pm" is "yes").',
		].join('\n'),
		user: 'Conversation history:\n{history}\n\nLast request:\n{request}\n\nTool calls:\n{tool_calls}\n\nAgent reply:\n{response}\n\nExpected outcome:\n{expected_outcome}\n\nReference answer:\n{expected_response}',
	},
	output: goalOutput('agent_goal_accuracy', 'the expected outcome'),
	toValue: (p) => p.verdict === 'yes',
	toReason: (p) => p.reason,
	toDetails: details,
	notApplicable: (v) =>
		v.expectedOutcome === undefined && v.expectedResponse === undefined
			? 'missing expected_outcome and expected_response: this judge compares the end state with a reference outcome; without one, use Agent Goal Accuracy (Without Reference)'
			: null,
};

/** Agent Goal Accuracy without a reference: the goal is inferred from the conversation. */
export const agentGoalAccuracyWithoutReference: JudgeDecl<GoalVerdict> = {
	id: 'agent_goal_accuracy_without_reference',
	order: 260,
	version: '1',
	displayName: 'Agent Goal Accuracy (Without Reference)',
	description:
		"Says yes when the agent's end state achieves the goal the user expressed in the conversation",
	reference:
		'Ragas AgentGoalAccuracyWithoutReference: the workflow (user_input); the goal is inferred from it; binary, 1 when the end state achieves it',
	anchorNames: ['AgentGoalAccuracyWithoutReference', 'agent_goal_accuracy'],
	inputs,
	params: [],
	scale: BINARY,
	threshold: { default: 1, direction: 'higher' },
	turnRule: 'last',
	rootCause: GOAL_SLOT,
	databricks: {
		column: 'agent/llm_judged/agent_goal_accuracy_without_reference/rating',
		rationaleColumn: 'agent/llm_judged/agent_goal_accuracy_without_reference/rationale',
		runMetric: 'agent/llm_judged/agent_goal_accuracy_without_reference/rating/percentage',
	},
	prompt: {
		system: [
			'You decide whether an AI agent achieved what the user wanted.',
			WORKFLOW,
			'Then compare the end state with the user goal: verdict "yes" when the end state achieves the goal, "no" when it does not or only in part.',
		].join('\n'),
		user: 'Conversation history:\n{history}\n\nLast request:\n{request}\n\nTool calls:\n{tool_calls}\n\nAgent reply:\n{response}',
	},
	output: goalOutput('agent_goal_accuracy_without_reference', 'the user goal'),
	toValue: (p) => p.verdict === 'yes',
	toReason: (p) => p.reason,
	toDetails: details,
};
