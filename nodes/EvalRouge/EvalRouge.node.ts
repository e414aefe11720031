import { rougeMetric } from '../../src/metrics/rouge';
import { metricNodeClass } from '../shared/metricNode';

/** rouge as an n8n node; everything about it is declared in src/metrics/rouge.ts. */
export class EvalRouge extends metricNodeClass(rougeMetric) {}
