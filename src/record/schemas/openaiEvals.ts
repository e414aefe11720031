/**
 * OpenAI evals samples (`evals/registry/data/*.jsonl`): `input` is the prompt as text or as chat
 * messages (the last user message is the request, the turns before it the history; a task given
 * only as system turns takes its last one), `ideal` the accepted answer or a list of them.
 */
import { requestFromMessages } from '../fields';
import { type Adapter, type Draft, type Names } from '../readers';
import { structured, text, typeName, type RowReader } from '../values';

function read(r: RowReader, d: Draft): Names {
	const names: Names = { request: 'input', response: 'input', expectedResponse: 'ideal' };
	const input = structured(r, r.take('input'), 'input', true);
	if (Array.isArray(input)) requestFromMessages(r, input, 'input', d);
	else d.request = text(r, input, 'input');
	const ideal = structured(r, r.take('ideal'), 'ideal', true);
	if (typeof ideal === 'string') d.expected_response = ideal;
	else if (typeof ideal === 'number' || typeof ideal === 'boolean')
		d.expected_response = String(ideal);
	else if (Array.isArray(ideal) && ideal.every((x) => typeof x === 'string') && ideal.length > 0) {
		d.expected_response = ideal[0] as string;
		if (ideal.length > 1) {
			// Several accepted answers: the first is the reference, all of them stay in metadata.
			r.release('ideal', `lists ${ideal.length} accepted answers; expected_response is the first`);
		}
	} else if (ideal !== undefined)
		r.fail('ideal', `expected string or list of strings, got ${typeName(ideal)}`);
	return names;
}

export const openaiEvals: Adapter = {
	columns: { input: ['request', 'history', 'response'], ideal: ['expected_response'] },
	read,
};
