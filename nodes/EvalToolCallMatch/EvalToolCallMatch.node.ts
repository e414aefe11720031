import { toolCallsMetric } from '../../src/metrics/toolcalls';
import { metricNodeClass } from '../shared/metricNode';

/**
 * tool_call_match (Tool Calls) as an n8n node (with its companions tool_call_arguments and tool_call_errors);
 * everything about it is declared in src/metrics/toolcalls.ts.
 */
export class EvalToolCallMatch extends metricNodeClass(toolCallsMetric) {}
