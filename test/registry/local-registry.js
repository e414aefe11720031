// A local npm registry for the install-path E2E (test/registry/community-nodes.js): verdaccio on
// 127.0.0.1, installed once into the project's cache folder, whose uplink is the registry npm is
// configured with here (`npm config get registry`, read at run time); our package is published to
// it and never looked up upstream. And the "registry front": n8n's community edition installs only
// from its default registry (another registry needs the licence feature
// feat:communityNodes:customRegistry), so n8n is started with an HTTPS proxy that answers for that
// one host with a certificate of a CA made for this run, and hands every request to the local
// registry. Nothing else passes the proxy; nothing it receives leaves the machine.
'use strict';

const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const tls = require('node:tls');
const { spawn, spawnSync, execFileSync } = require('node:child_process');

const REPO = path.resolve(__dirname, '..', '..');
const n8n = require(path.join(REPO, 'scripts', 'n8n-install.js'));

/** Pinned: 6.10.x is the first line that runs on Node 24 without overrides. */
const VERDACCIO_VERSION = process.env.RAG_EVAL_VERDACCIO_VERSION || '6.10.4';

function say(m) {
	process.stdout.write(`[registry] ${m}\n`);
}

/** The registry npm is configured with on this machine (verdaccio's uplink). */
function npmRegistry() {
	const r = spawnSync('npm', ['config', 'get', 'registry'], {
		cwd: REPO,
		env: n8n.node24Env(),
		encoding: 'utf8',
	});
	const url = r.stdout.trim();
	if (r.status !== 0 || !/^https?:\/\//.test(url))
		throw new Error(`npm config get registry gave no URL (exit ${r.status}): ${r.stderr}`);
	return url;
}

/** n8n's own default community-package registry, read from the pinned n8n (not written here). */
function n8nDefaultRegistry() {
	const file = path.join(
		n8n.n8nDir(),
		'node_modules',
		'n8n',
		'dist',
		'modules',
		'community-packages',
		'community-packages.config.js',
	);
	const m = /this\.registry\s*=\s*'([^']+)'/.exec(fs.readFileSync(file, 'utf8'));
	if (!m) throw new Error(`no default registry in ${file}: has n8n changed how it is configured?`);
	return m[1];
}

/** verdaccio in <cache>/verdaccio-<version>, installed on first use; its bin script. */
function ensureVerdaccio() {
	const dir = path.join(n8n.cacheRoot(), `verdaccio-${VERDACCIO_VERSION}`);
	const marker = path.join(dir, '.install-complete');
	const bin = path.join(dir, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
	if (fs.existsSync(marker) && fs.existsSync(bin)) return bin;
	say(`installing verdaccio@${VERDACCIO_VERSION} into ${dir} (first run only)`);
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(
		path.join(dir, 'package.json'),
		JSON.stringify({ name: 'rag-eval-verdaccio', private: true }),
	);
	execFileSync(
		'npm',
		[
			'install',
			'--no-audit',
			'--no-fund',
			'--loglevel=error',
			'--ignore-scripts',
			'--save-exact',
			`verdaccio@${VERDACCIO_VERSION}`,
		],
		{ cwd: dir, env: n8n.node24Env(), stdio: 'inherit' },
	);
	if (!fs.existsSync(bin)) throw new Error(`verdaccio installed without ${bin}`);
	fs.writeFileSync(marker, `verdaccio@${VERDACCIO_VERSION}\n`);
	return bin;
}

/**
 * fetch with `connection: close` and three tries: verdaccio closes idle keep-alive sockets, and a
 * reused one fails as "other side closed".
 */
async function request(url, init = {}) {
	for (let attempt = 1; ; attempt++) {
		try {
			return await fetch(url, { ...init, headers: { ...init.headers, connection: 'close' } });
		} catch (e) {
			if (attempt >= 3)
				throw new Error(`${init.method || 'GET'} ${url}: ${e.cause?.message || e.message}`);
			await new Promise((r) => setTimeout(r, 300 * attempt));
		}
	}
}

async function waitFor(what, fn, timeoutMs, child) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (child && child.exitCode !== null)
			throw new Error(`${what}: process exited (${child.exitCode})`);
		if (await fn().catch(() => false)) return;
		if (Date.now() > deadline) throw new Error(`${what}: not ready within ${timeoutMs / 1000} s`);
		await new Promise((r) => setTimeout(r, 500));
	}
}

/**
 * Starts verdaccio with its storage in `dir`: `{ url, port, uplink, publish(tgzOrDir), close }`.
 * Our package is local only (never proxied); everything else comes through the uplink.
 */
async function startRegistry(dir) {
	const bin = ensureVerdaccio();
	const uplink = npmRegistry();
	const port = await n8n.freePort();
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(path.join(dir, 'storage'), { recursive: true });
	const own = { access: '$all', publish: '$authenticated', unpublish: '$authenticated' };
	const proxied = { ...own, proxy: 'upstream' };
	// JSON is YAML: verdaccio reads this as its config.yaml.
	const config = {
		storage: path.join(dir, 'storage'),
		auth: { htpasswd: { file: path.join(dir, 'htpasswd'), max_users: 10 } },
		uplinks: { upstream: { url: uplink, timeout: '120s', max_fails: 10, cache: true } },
		packages: { 'n8n-nodes-rag-eval': own, '@*/*': proxied, '**': proxied },
		web: { enable: false },
		max_body_size: '200mb',
		log: { type: 'stdout', format: 'pretty', level: 'warn' },
	};
	const configFile = path.join(dir, 'config.yaml');
	fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
	const logFd = fs.openSync(path.join(dir, 'verdaccio.log'), 'w');
	const child = spawn(
		process.execPath,
		[bin, '--config', configFile, '--listen', `127.0.0.1:${port}`],
		{ cwd: dir, env: n8n.node24Env(), stdio: ['ignore', logFd, logFd] },
	);
	const url = `http://127.0.0.1:${port}/`;
	const close = async () => {
		if (child.exitCode === null) {
			child.kill('SIGTERM');
			await new Promise((r) => (child.exitCode !== null ? r() : child.on('exit', r)));
		}
		fs.closeSync(logFd);
	};
	try {
		await waitFor('verdaccio', async () => (await request(`${url}-/ping`)).ok, 60000, child);
		// A user for publishing; its token goes into an npmrc of this run only.
		const user = 'rag-eval-e2e';
		const res = await request(`${url}-/user/org.couchdb.user:${user}`, {
			method: 'PUT',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ name: user, password: `e2e-${port}-pass`, type: 'user', roles: [] }),
		});
		const body = await res.json();
		if (!body.token)
			throw new Error(`verdaccio made no user: HTTP ${res.status} ${JSON.stringify(body)}`);
		const npmrc = path.join(dir, 'publish.npmrc');
		fs.writeFileSync(npmrc, `//127.0.0.1:${port}/:_authToken=${body.token}\n`, { mode: 0o600 });
		const publish = (what) => {
			const r = spawnSync(
				'npm',
				[
					'publish',
					what,
					`--registry=${url}`,
					`--userconfig=${npmrc}`,
					'--provenance=false',
					'--ignore-scripts',
					'--tag=latest',
					'--loglevel=error',
				],
				{ cwd: dir, env: n8n.node24Env(), encoding: 'utf8' },
			);
			if (r.status !== 0) throw new Error(`npm publish ${what} failed: ${r.stderr.slice(-2000)}`);
		};
		/** The registry's document of a package (versions, dist-tags). */
		const packument = async (name) => (await request(`${url}${name}`)).json();
		say(`verdaccio ${VERDACCIO_VERSION} at ${url} (uplink: the registry npm is configured with)`);
		return { url, port, uplink, publish, packument, close };
	} catch (e) {
		await close();
		throw e;
	}
}

/** A CA and a server certificate for `host`, made with openssl for this run only. */
function makeCertificates(dir, host) {
	fs.mkdirSync(dir, { recursive: true });
	const f = (n) => path.join(dir, n);
	const run = (args) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
	run([
		'req',
		'-x509',
		'-newkey',
		'rsa:2048',
		'-nodes',
		'-days',
		'2',
		'-keyout',
		f('ca.key'),
		'-out',
		f('ca.pem'),
		'-subj',
		'/CN=n8n-nodes-rag-eval E2E local CA',
		'-addext',
		'basicConstraints=critical,CA:TRUE',
		'-addext',
		'keyUsage=critical,keyCertSign,cRLSign',
	]);
	run([
		'req',
		'-newkey',
		'rsa:2048',
		'-nodes',
		'-keyout',
		f('host.key'),
		'-out',
		f('host.csr'),
		'-subj',
		`/CN=${host}`,
	]);
	fs.writeFileSync(
		f('host.ext'),
		`subjectAltName=DNS:${host}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n`,
	);
	run([
		'x509',
		'-req',
		'-in',
		f('host.csr'),
		'-CA',
		f('ca.pem'),
		'-CAkey',
		f('ca.key'),
		'-CAcreateserial',
		'-days',
		'2',
		'-out',
		f('host.pem'),
		'-extfile',
		f('host.ext'),
	]);
	return { ca: f('ca.pem'), key: f('host.key'), cert: f('host.pem') };
}

/**
 * The registry front: an HTTP proxy on 127.0.0.1 that serves `registryUrl`'s host (HTTPS through
 * CONNECT, or plain proxy requests) from the local registry at `target`, and refuses every other
 * host. `{ url, ca, served(), refused(), close }`.
 */
async function startRegistryFront(dir, registryUrl, target) {
	const host = new URL(registryUrl).host;
	const certs = makeCertificates(dir, new URL(registryUrl).hostname);
	const secureContext = tls.createSecureContext({
		key: fs.readFileSync(certs.key),
		cert: fs.readFileSync(certs.cert),
	});
	const served = [];
	const refused = new Set();
	const to = new URL(target);
	const forward = (req, res) => {
		const u = new URL(req.url, `https://${host}`);
		served.push(`${req.method} ${u.pathname}`);
		const up = http.request(
			{
				host: to.hostname,
				port: to.port,
				method: req.method,
				path: u.pathname + u.search,
				// verdaccio writes tarball addresses from these, so npm asks this host for them too.
				headers: { ...req.headers, host, 'x-forwarded-proto': 'https' },
			},
			(upRes) => {
				res.writeHead(upRes.statusCode, upRes.headers);
				upRes.pipe(res);
			},
		);
		up.on('error', (e) => {
			res.writeHead(502, { 'content-type': 'text/plain' });
			res.end(`local registry: ${e.message}`);
		});
		req.pipe(up);
	};
	const inner = http.createServer(forward);
	const proxy = http.createServer((req, res) => {
		// A plain-HTTP proxy request carries the absolute address.
		let h = '';
		try {
			h = new URL(req.url).host;
		} catch {
			// not a proxy request
		}
		if (h === host || h === new URL(registryUrl).hostname) return forward(req, res);
		refused.add(h || req.url);
		res.writeHead(403, { 'content-type': 'text/plain' });
		res.end('the E2E registry front serves the package registry only');
	});
	proxy.on('connect', (req, socket, head) => {
		const [name, port = '443'] = req.url.split(':');
		if (name !== new URL(registryUrl).hostname || port !== (new URL(registryUrl).port || '443')) {
			refused.add(req.url);
			socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
			return;
		}
		socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
		if (head && head.length) socket.unshift(head);
		const secure = new tls.TLSSocket(socket, { isServer: true, secureContext });
		secure.on('error', () => socket.destroy());
		inner.emit('connection', secure);
	});
	proxy.on('clientError', (_e, socket) => socket.destroy());
	await new Promise((r) => proxy.listen(0, '127.0.0.1', r));
	const url = `http://127.0.0.1:${proxy.address().port}`;
	say(`registry front at ${url}: ${host} is served from ${target}`);
	return {
		url,
		ca: certs.ca,
		served: () => served.slice(),
		refused: () => [...refused],
		close: () =>
			new Promise((r) => {
				proxy.closeAllConnections?.();
				inner.closeAllConnections?.();
				proxy.close(() => r());
			}),
	};
}

module.exports = {
	startRegistry,
	startRegistryFront,
	npmRegistry,
	n8nDefaultRegistry,
	VERDACCIO_VERSION,
};
