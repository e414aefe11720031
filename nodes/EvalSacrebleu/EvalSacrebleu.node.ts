import { sacreBleuMetric } from '../../src/metrics/sacrebleu';
import { metricNodeClass } from '../shared/metricNode';

/** sacrebleu as an n8n node; everything about it is declared in src/metrics/sacrebleu.ts. */
export class EvalSacrebleu extends metricNodeClass(sacreBleuMetric) {}
