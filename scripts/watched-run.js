// Runs a long install step (npm install, node-gyp) with its output in a log file, and stops it when
// it makes no progress: no growth of its log, and no CPU time, bytes read or written, or change of
// child processes anywhere in its process tree (Linux /proc; elsewhere the log alone) for the
// stall limit. A slow download still reads bytes and a slow compile still burns CPU, so only a
// step that is truly stuck is stopped.
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

/** Default stall limit: RAG_EVAL_INSTALL_STALL_MINUTES (fractions allowed), else 10 minutes. */
function stallLimitMs(env = process.env) {
	const v = Number(env.RAG_EVAL_INSTALL_STALL_MINUTES);
	return Number.isFinite(v) && v > 0 ? v * 60000 : 10 * 60000;
}

/** A step stopped for making no progress. */
class StallError extends Error {
	constructor(message, logFile) {
		super(message);
		this.name = 'StallError';
		this.logFile = logFile;
	}
}

/** "90 s" or "10 min". */
function duration(ms) {
	return ms >= 120000 ? `${+(ms / 60000).toFixed(1)} min` : `${Math.round(ms / 1000)} s`;
}

/** Parent pid and CPU ticks (own and of reaped children) of one process, or null when gone. */
function procStat(pid) {
	try {
		const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		// Fields after "(comm) ": state ppid ... utime(14) stime(15) cutime(16) cstime(17).
		const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
		return {
			ppid: Number(f[1]),
			cpu: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]),
		};
	} catch {
		return null;
	}
}

/** Bytes a process has read and written so far (files, pipes and sockets), 0 when unreadable. */
function procIo(pid) {
	try {
		let n = 0;
		for (const m of fs
			.readFileSync(`/proc/${pid}/io`, 'utf8')
			.matchAll(/^(?:rchar|wchar): (\d+)$/gm))
			n += Number(m[1]);
		return n;
	} catch {
		return 0;
	}
}

/** A process and all its descendants (Linux /proc); just the process elsewhere. */
function processTree(root) {
	let entries;
	try {
		entries = fs.readdirSync('/proc');
	} catch {
		return [root];
	}
	const children = new Map();
	for (const e of entries) {
		if (!/^\d+$/.test(e)) continue;
		const st = procStat(Number(e));
		if (!st) continue;
		if (!children.has(st.ppid)) children.set(st.ppid, []);
		children.get(st.ppid).push(Number(e));
	}
	const tree = [];
	const queue = [root];
	while (queue.length) {
		const p = queue.shift();
		tree.push(p);
		queue.push(...(children.get(p) || []));
	}
	return tree;
}

/** What a process tree has done so far; any change of `key` is progress. */
function treeActivity(root) {
	const pids = processTree(root);
	let cpu = 0;
	let io = 0;
	for (const p of pids) {
		cpu += procStat(p)?.cpu ?? 0;
		io += procIo(p);
	}
	return { pids, cpu, io, key: `${cpu}|${io}|${pids.join(',')}` };
}

/** SIGKILL a process and its descendants, twice over, for children started meanwhile. */
function killTree(root) {
	for (let round = 0; round < 2; round++) {
		for (const p of processTree(root).reverse()) {
			try {
				process.kill(p, 'SIGKILL');
			} catch {
				// already gone
			}
		}
	}
}

function fileSize(file) {
	try {
		return fs.statSync(file).size;
	} catch {
		return -1;
	}
}

/**
 * Runs `cmd args` with stdout and stderr in `logFile`; resolves when it exits 0, rejects with its
 * log's tail when it fails, and with a StallError after stopping it when it made no progress for
 * `stallMs`. `say` receives the progress lines (a heartbeat every 20 s).
 */
function runWatched(cmd, args, { cwd, env, logFile, label, stallMs = stallLimitMs(), say }) {
	return new Promise((resolve, reject) => {
		const started = Date.now();
		fs.mkdirSync(path.dirname(logFile), { recursive: true });
		const out = fs.openSync(logFile, 'w');
		const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', out, out] });
		let last = '';
		let lastProgress = Date.now();
		let stalled = false;
		const watch = setInterval(
			() => {
				if (child.pid === undefined || child.exitCode !== null) return;
				const now = `${fileSize(logFile)}|${treeActivity(child.pid).key}`;
				if (now !== last) {
					last = now;
					lastProgress = Date.now();
					return;
				}
				if (Date.now() - lastProgress < stallMs) return;
				stalled = true;
				clearInterval(watch);
				say(
					`${label}: no progress for ${duration(stallMs)} (its log did not grow; no CPU, I/O or child-process activity): stopping it`,
				);
				killTree(child.pid);
			},
			Math.max(200, Math.min(10000, stallMs / 6)),
		);
		const beat = setInterval(() => {
			say(
				`${label}: still running (${Math.round((Date.now() - started) / 1000)} s; last progress ${Math.round((Date.now() - lastProgress) / 1000)} s ago)`,
			);
		}, 20000);
		const done = () => {
			clearInterval(watch);
			clearInterval(beat);
			fs.closeSync(out);
		};
		child.on('error', (err) => {
			done();
			reject(err);
		});
		child.on('close', (code, signal) => {
			done();
			const secs = ((Date.now() - started) / 1000).toFixed(0);
			if (stalled) {
				reject(
					new StallError(
						`${label} made no progress for ${duration(stallMs)} and was stopped after ${secs} s (log ${logFile})`,
						logFile,
					),
				);
			} else if (code === 0) {
				say(`${label}: done in ${secs} s`);
				resolve();
			} else {
				const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n');
				reject(
					new Error(
						`${label} failed (${signal ? `signal ${signal}` : `exit ${code}`}) after ${secs} s; log ${logFile}:\n${tail}`,
					),
				);
			}
		});
	});
}

/**
 * runWatched, and once more when it stalled (after `beforeRetry`, which cleans up what the
 * stopped run left); a second stall is an error that says what to do.
 */
async function runWithRetry(cmd, args, opts, beforeRetry = () => undefined) {
	try {
		return await runWatched(cmd, args, opts);
	} catch (e) {
		if (!(e instanceof StallError)) throw e;
		opts.say(`${opts.label}: retrying once`);
		await beforeRetry();
		try {
			return await runWatched(cmd, args, opts);
		} catch (e2) {
			if (!(e2 instanceof StallError)) throw e2;
			throw new Error(
				`${opts.label} stalled twice (no progress for ${duration(opts.stallMs ?? stallLimitMs())} each time); giving up. ` +
					`See ${e2.logFile}; a network that stopped answering is the usual cause. ` +
					'RAG_EVAL_INSTALL_STALL_MINUTES sets the limit; the next run starts over cleanly.',
			);
		}
	}
}

module.exports = {
	StallError,
	killTree,
	processTree,
	runWatched,
	runWithRetry,
	stallLimitMs,
	treeActivity,
};
