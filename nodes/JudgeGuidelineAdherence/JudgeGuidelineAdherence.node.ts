import { guidelineAdherence } from '../../src/judges/specs/guidelineAdherence';
import { judgeNodeClass } from '../shared/judgeNode';

/** The guideline_adherence judge as an n8n node; everything about it is declared in src/judges/specs/guidelineAdherence.ts. */
export class JudgeGuidelineAdherence extends judgeNodeClass(guidelineAdherence) {}
