import { gleuMetric } from '../../src/metrics/gleu';
import { metricNodeClass } from '../shared/metricNode';

/** gleu as an n8n node; everything about it is declared in src/metrics/gleu.ts. */
export class EvalGleu extends metricNodeClass(gleuMetric) {}
