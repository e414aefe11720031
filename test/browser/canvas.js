// What the n8n canvas shows, measured in the page, and the layout faults the browser suite fails
// on: two nodes (or a node and a sticky note) on top of each other, a node's text (name, subtitle,
// notes, handle labels) on another node or its text, a connection that is missing, off screen, or
// runs under a node that is neither of its ends.
'use strict';

/**
 * Runs in the page (page.evaluate): every canvas node's box, the boxes of its visible texts (each
 * clipped by the ancestors that hide their overflow, so an ellipsis line counts as what shows),
 * every connection as points along its path in screen coordinates, the canvas's own box and the
 * canvas transform (to tell when the opening zoom-to-fit has settled).
 */
function measureCanvas() {
	const box = (r) => ({ x: r.left, y: r.top, w: r.width, h: r.height });
	const textBoxes = (root) => {
		const out = [];
		const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
		for (let t = walker.nextNode(); t; t = walker.nextNode()) {
			if (!t.textContent.trim()) continue;
			const el = t.parentElement;
			// The hover toolbar is not drawn until the pointer is on the node.
			if (el.closest('[data-test-id="canvas-node-toolbar"]')) continue;
			const range = document.createRange();
			range.selectNodeContents(t);
			let b = box(range.getBoundingClientRect());
			for (let a = el; a && a !== root.parentElement; a = a.parentElement) {
				const cs = getComputedStyle(a);
				if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
				const c = box(a.getBoundingClientRect());
				const x = Math.max(b.x, c.x);
				const y = Math.max(b.y, c.y);
				b = { x, y, w: Math.min(b.x + b.w, c.x + c.w) - x, h: Math.min(b.y + b.h, c.y + c.h) - y };
			}
			if (b.w > 0 && b.h > 0) out.push({ text: t.textContent.trim().slice(0, 40), ...b });
		}
		return out;
	};
	const nodes = [...document.querySelectorAll('.vue-flow__node')].map((el) => {
		const sticky = !!el.querySelector('[data-test-id="sticky"]');
		return {
			id: el.getAttribute('data-id'),
			sticky,
			body: box(el.getBoundingClientRect()),
			texts: sticky ? [] : textBoxes(el),
		};
	});
	const edges = [...document.querySelectorAll('[data-test-id="edge"]')].map((g) => {
		const p = g.querySelector('path');
		const m = p.getScreenCTM();
		const length = p.getTotalLength();
		const n = Math.max(2, Math.ceil(length / 8));
		const pts = [];
		for (let i = 0; i <= n; i++) {
			const q = p.getPointAtLength((length * i) / n);
			pts.push([q.x * m.a + q.y * m.c + m.e, q.x * m.b + q.y * m.d + m.f]);
		}
		return {
			from: g.getAttribute('data-source-node-name'),
			to: g.getAttribute('data-target-node-name'),
			length,
			pts,
		};
	});
	const pane = document.querySelector('[data-test-id="canvas"]');
	const tp = document.querySelector('.vue-flow__transformationpane');
	return {
		nodes,
		edges,
		pane: pane ? box(pane.getBoundingClientRect()) : null,
		transform: tp ? tp.style.transform : '',
	};
}

/** Whether two boxes share more than `pad` pixels each way. */
function overlaps(a, b, pad = 0) {
	return (
		a.x < b.x + b.w - pad && b.x < a.x + a.w - pad && a.y < b.y + b.h - pad && b.y < a.y + a.h - pad
	);
}

function inside(p, r) {
	return p[0] > r.x && p[0] < r.x + r.w && p[1] > r.y && p[1] < r.y + r.h;
}

/**
 * The layout faults of a measured canvas, each a sentence naming the offending pair. `names` maps
 * a canvas node id to its workflow node (name, and whether it is a sticky note); `connections` is
 * the workflow's list of [from, to] node names.
 */
function layoutFaults(measured, names, connections) {
	const faults = [];
	const nodes = measured.nodes.map((n) => ({ ...n, name: names.get(n.id)?.name ?? n.id }));
	const what = (n) => `${n.sticky ? 'note' : 'node'} "${n.name}"`;
	for (let i = 0; i < nodes.length; i++)
		for (let j = i + 1; j < nodes.length; j++) {
			const a = nodes[i];
			const b = nodes[j];
			if (overlaps(a.body, b.body)) faults.push(`${what(a)} overlaps ${what(b)}`);
		}
	// Half a pixel of slack: texts of neighbours may touch at the editor's rounding.
	for (const a of nodes)
		for (const b of nodes) {
			if (a === b) continue;
			for (const t of a.texts) {
				if (overlaps(t, b.body, 0.5))
					faults.push(`text "${t.text}" of ${what(a)} lies on ${what(b)}`);
				if (a.name < b.name)
					for (const u of b.texts)
						if (overlaps(t, u, 0.5))
							faults.push(`text "${t.text}" of ${what(a)} overlaps text "${u.text}" of ${what(b)}`);
			}
		}
	const drawn = new Map();
	for (const e of measured.edges) {
		const key = `${e.from}\u0000${e.to}`;
		drawn.set(key, [...(drawn.get(key) ?? []), e]);
	}
	const wanted = new Map();
	for (const [from, to] of connections) {
		const key = `${from}\u0000${to}`;
		wanted.set(key, (wanted.get(key) ?? 0) + 1);
	}
	for (const [key, count] of wanted) {
		const [from, to] = key.split('\u0000');
		const edges = drawn.get(key) ?? [];
		if (edges.length < count) {
			faults.push(`connection "${from}" -> "${to}" is not drawn (${edges.length} of ${count})`);
			continue;
		}
		for (const e of edges) {
			if (!(e.length > 1)) faults.push(`connection "${from}" -> "${to}" has no length`);
			if (measured.pane && e.pts.some((p) => !inside(p, measured.pane)))
				faults.push(`connection "${from}" -> "${to}" runs off the canvas at the opening zoom`);
			for (const n of nodes) {
				if (n.sticky || n.name === from || n.name === to) continue;
				if (e.pts.some((p) => inside(p, n.body)))
					faults.push(`connection "${from}" -> "${to}" runs under ${what(n)}`);
			}
		}
	}
	return faults;
}

/** The [from, to] node names of every connection of a workflow, of every connection type. */
function connectionsOf(wf) {
	const out = [];
	for (const [from, byType] of Object.entries(wf.connections ?? {}))
		for (const outputs of Object.values(byType))
			for (const targets of outputs ?? []) for (const t of targets ?? []) out.push([from, t.node]);
	return out;
}

module.exports = { measureCanvas, layoutFaults, connectionsOf, overlaps };
