/** A small XML 1.0 well-formedness checker for tests: nesting, quoting, entities, one root. */
export interface XmlElement {
	name: string;
	attrs: Record<string, string>;
	children: XmlElement[];
	text: string;
}

const ENTITY = /&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g;

function decode(raw: string): string {
	if (/&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(raw))
		throw new Error(`bad entity in ${raw.slice(0, 60)}`);
	if (/</.test(raw)) throw new Error(`raw < in text: ${raw.slice(0, 60)}`);
	return raw.replace(ENTITY, (_, e: string) =>
		e === 'amp'
			? '&'
			: e === 'lt'
				? '<'
				: e === 'gt'
					? '>'
					: e === 'quot'
						? '"'
						: e === 'apos'
							? "'"
							: String.fromCodePoint(
									e.startsWith('#x') ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10),
								),
	);
}

export function parseXml(source: string): XmlElement {
	let s = source.replace(/^<\?xml[^?]*\?>\s*/, '');
	const root: XmlElement = { name: '#doc', attrs: {}, children: [], text: '' };
	const stack: XmlElement[] = [root];
	const tag =
		/^<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>/;
	while (s.length) {
		const lt = s.indexOf('<');
		const text = lt === -1 ? s : s.slice(0, lt);
		if (text) stack[stack.length - 1].text += decode(text);
		if (lt === -1) break;
		s = s.slice(lt);
		const m = tag.exec(s);
		if (!m) throw new Error(`malformed tag at: ${s.slice(0, 80)}`);
		const [whole, close, name, attrText, selfClose] = m;
		if (close) {
			const open = stack.pop();
			if (!open || open.name !== name) throw new Error(`mismatched </${name}>`);
		} else {
			const attrs: Record<string, string> = {};
			for (const a of attrText.matchAll(/([A-Za-z_][\w.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
				if (a[1] in attrs) throw new Error(`duplicate attribute ${a[1]}`);
				attrs[a[1]] = decode(a[2] ?? a[3]);
			}
			const el: XmlElement = { name, attrs, children: [], text: '' };
			stack[stack.length - 1].children.push(el);
			if (!selfClose) stack.push(el);
		}
		s = s.slice(whole.length);
	}
	if (stack.length !== 1) throw new Error(`unclosed <${stack[stack.length - 1].name}>`);
	if (root.children.length !== 1 || root.text.trim())
		throw new Error('exactly one root element expected');
	return root.children[0];
}
