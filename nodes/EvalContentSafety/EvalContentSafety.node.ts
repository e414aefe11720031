import { safetyNodeClass } from '../shared/safetyNodeClass';

/** The Content Safety node; its facts are declared in src/safety/specs.ts. */
export class EvalContentSafety extends safetyNodeClass('content_safety') {}
