import { bleuMetric } from '../../src/metrics/bleu';
import { metricNodeClass } from '../shared/metricNode';

/** bleu as an n8n node; everything about it is declared in src/metrics/bleu.ts. */
export class EvalBleu extends metricNodeClass(bleuMetric) {}
