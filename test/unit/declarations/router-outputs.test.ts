/**
 * The root-cause router's outputs are connections in saved workflows: a released slot keeps its
 * output for good. fixtures/router-outputs.json records the released slots and their positions;
 * a slot declared since then (a new judge's) only adds an output after them.
 */
import { slotsOf } from '../../../src/registry';
import { routerOutputNames } from '../../../src/rootcause';
import RELEASED from './fixtures/router-outputs.json';

const released = RELEASED as Record<string, number>;

describe('router outputs', () => {
	const slots = slotsOf();

	it('keeps every released slot at its released output', () => {
		for (const [slot, output] of Object.entries(released))
			expect({ slot, output: slots.find((s) => s.slot === slot)?.output }).toEqual({
				slot,
				output,
			});
	});

	it('gives each slot its own output, new slots after the released ones', () => {
		const outputs = slots.map((s) => s.output);
		expect(new Set(outputs).size).toBe(outputs.length);
		const last = Math.max(...Object.values(released));
		for (const s of slots.filter((x) => !(x.slot in released)))
			expect(s.output).toBeGreaterThan(last);
	});

	it('lists the released slots first, in output order, after Pass, Incomplete and Custom Judge', () => {
		const names = routerOutputNames();
		expect(names.slice(0, 3)).toEqual(['Pass', 'Incomplete', 'Custom Judge']);
		const inOrder = Object.entries(released)
			.sort((a, b) => a[1] - b[1])
			.map(([slot]) => slot);
		expect(names.slice(3, 3 + inOrder.length)).toEqual(inOrder);
	});
});
