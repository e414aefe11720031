// A static HTML preview of a Slack Block Kit message (header, section text and fields, context,
// divider; mrkdwn *bold*, _italic_, `code`, <url|label>, :emoji: for the few the reports use), for
// looking at what the nightly run posted without a Slack workspace. Not Slack's renderer: spacing
// and fonts are approximate.
'use strict';

// Drawn, not typed: a headless browser may have no emoji font.
const dot = (c) => `<span class="dot" style="background:${c}"></span>`;
const EMOJI = { large_green_circle: dot('#2eb67d'), red_circle: dot('#e01e5a'), warning: '⚠️' };

function esc(t) {
	return String(t).replace(/&(?!(amp|lt|gt);)/g, '&amp;').replace(/"/g, '&quot;');
}

// Slack text arrives with &, < and > already escaped except for its own <...> links.
function mrkdwn(text) {
	let t = esc(text);
	t = t.replace(/<(https?:[^|>]+)\|([^>]+)>/g, '<a href="$1">$2</a>');
	t = t.replace(/<!here>/g, '<span class="mention">@here</span>');
	t = t.replace(/`([^`]+)`/g, '<code>$1</code>');
	t = t.replace(/(^|[\s(])\*([^*\n]+)\*/g, '$1<b>$2</b>');
	t = t.replace(/(^|[\s(])_([^_\n]+)_/g, '$1<i>$2</i>');
	t = t.replace(/:([a-z_]+):/g, (m, name) => EMOJI[name] || m);
	return t.replace(/\n/g, '<br>');
}

function block(b) {
	switch (b.type) {
		case 'header':
			return `<div class="header">${esc(b.text.text).replace(/</g, '&lt;')}</div>`;
		case 'section':
			return `<div class="section">${b.text ? `<div>${mrkdwn(b.text.text)}</div>` : ''}${
				b.fields
					? `<div class="fields">${b.fields.map((f) => `<div>${mrkdwn(f.text)}</div>`).join('')}</div>`
					: ''
			}</div>`;
		case 'context':
			return `<div class="context">${b.elements.map((e) => mrkdwn(e.text)).join(' ')}</div>`;
		case 'divider':
			return '<hr>';
		default:
			return '';
	}
}

/** Preview page of one Slack message (`{text, blocks}`), posted by `app` at `time`. */
function slackPreviewHtml(message, { app = 'n8n', time = '02:04' } = {}) {
	return `<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body{margin:0;background:#fff;font:15px/1.46668 Slack-Lato,Lato,"Helvetica Neue",Helvetica,Arial,sans-serif;color:#1d1c1d}
.msg{display:flex;gap:8px;padding:16px 20px;max-width:760px}
.avatar{width:36px;height:36px;border-radius:4px;background:#ea4b71;color:#fff;font-weight:700;display:flex;align-items:center;justify-content:center;flex:none}
.who b{font-weight:900}.who span{color:#616061;font-size:12px;margin-left:6px}.app{background:#ddd;color:#616061;font-size:10px;padding:1px 3px;border-radius:2px;margin-left:4px}
.header{font-size:18px;font-weight:900;margin:6px 0 4px}.section{margin:6px 0}
.fields{display:grid;grid-template-columns:1fr 1fr;gap:6px 18px}
.context{color:#616061;font-size:12px;margin:4px 0}hr{border:none;border-top:1px solid #ddd;margin:10px 0}
code{font:12px Monaco,Menlo,Consolas,monospace;color:#e01e5a;background:#f6f6f6;border:1px solid #ddd;border-radius:3px;padding:0 3px}
.dot{display:inline-block;width:13px;height:13px;border-radius:50%;vertical-align:-1px}a{color:#1264a3;text-decoration:none}.mention{background:#fff3c4;color:#1264a3;border-radius:3px;padding:0 2px}
</style></head><body><div class="msg"><div class="avatar">n8n</div><div><div class="who"><b>${esc(app)}</b><span class="app">APP</span><span>${esc(time)}</span></div>
${message.text.startsWith('<!here>') ? `<div>${mrkdwn('<!here>')}</div>` : ''}
${message.blocks.map(block).join('\n')}
</div></div></body></html>`;
}

module.exports = { slackPreviewHtml };
