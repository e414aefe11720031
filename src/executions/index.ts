/**
 * Eval Executions as a library: n8n's public API client, sampling, the two-phase watermark and the
 * execution -> eval row conversion. No n8n imports: the node in nodes/EvalExecutions wires it.
 */
export * from './client';
export * from './convert';
export * from './read';
export * from './sample';
export * from './watermark';
