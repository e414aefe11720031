/**
 * A test-only node that reports what n8n's expression engine resolves for the default field
 * parameters our scoring nodes declare (`={{ $json.<field> }}`), per item, for a string-typed and
 * a json-typed parameter: the reference the item loop's direct read of untouched defaults must match.
 */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

export class TestParamProbe implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Param Probe',
		name: 'paramProbe',
		group: ['transform'],
		version: 1,
		description: 'Reports resolved default field parameters',
		defaults: { name: 'Param Probe' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{ displayName: 'Text', name: 'text', type: 'string', default: '={{ $json.response }}' },
			{ displayName: 'Doc', name: 'doc', type: 'json', default: '={{ $json.response }}' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().map((_item, i) => {
				const text = this.getNodeParameter('text', i);
				const doc = this.getNodeParameter('doc', i);
				return {
					json: {
						text: text === undefined ? '(undefined)' : (text as never),
						textType: text === null ? 'null' : Array.isArray(text) ? 'array' : typeof text,
						doc: doc === undefined ? '(undefined)' : (doc as never),
						docType: doc === null ? 'null' : Array.isArray(doc) ? 'array' : typeof doc,
					},
					pairedItem: { item: i },
				};
			}),
		];
	}
}
