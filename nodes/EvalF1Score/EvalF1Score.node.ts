import { f1ScoreMetric } from '../../src/metrics/f1';
import { metricNodeClass } from '../shared/metricNode';

/** f1_score as an n8n node; everything about it is declared in src/metrics/f1.ts. */
export class EvalF1Score extends metricNodeClass(f1ScoreMetric) {}
