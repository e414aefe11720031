import { safetyNodeClass } from '../shared/safetyNodeClass';

/** The Indirect Attack (XPIA) node; its facts are declared in src/safety/specs.ts. */
export class EvalIndirectAttack extends safetyNodeClass('indirect_attack') {}
