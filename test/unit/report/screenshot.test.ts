import { spawnSync } from 'node:child_process';
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inflateSync } from 'node:zlib';
import { htmlReport } from '../../../src/report';
import { sampleInput } from './fixtures';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACT = resolve(__dirname, '../../../test-artifacts/report.png');

// Width, height and inflated pixel bytes of a PNG, read from its IHDR and IDAT chunks.
function readPng(file: string): { width: number; height: number; pixels: Buffer } {
	const buf = readFileSync(file);
	expect(buf.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
	let offset = 8;
	let width = 0;
	let height = 0;
	const idat: Buffer[] = [];
	while (offset < buf.length) {
		const len = buf.readUInt32BE(offset);
		const type = buf.toString('latin1', offset + 4, offset + 8);
		const data = buf.subarray(offset + 8, offset + 8 + len);
		if (type === 'IHDR') {
			width = data.readUInt32BE(0);
			height = data.readUInt32BE(4);
		}
		if (type === 'IDAT') idat.push(data);
		offset += 12 + len;
	}
	return { width, height, pixels: inflateSync(Buffer.concat(idat)) };
}

const available = existsSync(CHROMIUM);
if (!available) {
	if (process.env.CI) {
		test('headless Chromium renders the HTML report', () => {
			throw new Error(
				`Chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH.`,
			);
		});
	} else {
		console.warn(
			`Skipping the HTML screenshot test: no Chromium at ${CHROMIUM} (apt-get install -y chromium).`,
		);
		test.skip('headless Chromium renders the HTML report', () => undefined);
	}
} else {
	test('headless Chromium renders the HTML report to test-artifacts/report.png', () => {
		const dir = mkdtempSync(join(tmpdir(), 'rag-eval-report-'));
		try {
			const page = join(dir, 'report.html');
			writeFileSync(page, htmlReport(sampleInput()));
			const shot = join(dir, 'report.png');
			const run = spawnSync(
				CHROMIUM,
				[
					'--headless',
					'--no-sandbox',
					'--disable-gpu',
					'--disable-quic',
					'--no-first-run',
					'--disable-background-networking',
					'--disable-component-update',
					'--disable-sync',
					'--hide-scrollbars',
					`--user-data-dir=${join(dir, 'profile')}`,
					`--screenshot=${shot}`,
					'--window-size=1200,1600',
					`file://${page}`,
				],
				{ encoding: 'utf8', timeout: 90_000 },
			);
			expect({ status: run.status, error: run.error?.message, exists: existsSync(shot) }).toEqual({
				status: 0,
				error: undefined,
				exists: true,
			});
			const png = readPng(shot);
			expect([png.width, png.height]).toEqual([1200, 1600]);
			// A blank page inflates to a handful of byte values; a rendered report to many.
			expect(new Set(png.pixels).size).toBeGreaterThan(50);
			expect(statSync(shot).size).toBeGreaterThan(20_000);
			mkdirSync(resolve(ARTIFACT, '..'), { recursive: true });
			writeFileSync(ARTIFACT, readFileSync(shot));
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
}
