import { safetyNodeClass } from '../shared/safetyNodeClass';

/** The Protected Material node; its facts are declared in src/safety/specs.ts. */
export class EvalProtectedMaterial extends safetyNodeClass('protected_material') {}
