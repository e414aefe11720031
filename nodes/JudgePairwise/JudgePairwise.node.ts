import { pairwiseJudge } from '../../src/judges/specs/pairwise';
import { judgeNodeClass } from '../shared/judgeNode';

export class JudgePairwise extends judgeNodeClass(pairwiseJudge) {}
