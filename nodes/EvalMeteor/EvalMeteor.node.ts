import { meteorMetric } from '../../src/metrics/meteor';
import { metricNodeClass } from '../shared/metricNode';

/** meteor as an n8n node; everything about it is declared in src/metrics/meteor.ts. */
export class EvalMeteor extends metricNodeClass(meteorMetric) {}
