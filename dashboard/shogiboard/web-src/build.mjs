// The board's bundle: src/ and shogiground (package-lock.json) into ../web-build/ (index.html,
// shogiboard.js, shogiboard.css, shogiground's licence), and web-build/sources.json, the SHA-256 of
// every input, by which `make` (kifudb.dashboard.shogiboard.build) knows the build is current.
import * as esbuild from 'esbuild';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';

const out = new URL('../web-build/', import.meta.url);
const here = new URL('./', import.meta.url);
mkdirSync(out, { recursive: true });
await esbuild.build({
  entryPoints: ['src/index.js'], bundle: true, format: 'iife', minify: true, target: 'chrome110',
  outfile: new URL('shogiboard.js', out).pathname, legalComments: 'none',
  banner: { js: '/*! kifudb shogiboard, with shogiground 0.10.3 (GPL-3.0-or-later, see ' +
    'LICENSE-shogiground.txt; sources in kifudb/dashboard/shogiboard/web-src) */' },
});
await esbuild.build({ entryPoints: ['src/board.css'], bundle: true, minify: true,
  outfile: new URL('shogiboard.css', out).pathname });
copyFileSync(new URL('src/index.html', here), new URL('index.html', out));
copyFileSync(new URL('node_modules/shogiground/LICENSE', here), new URL('LICENSE-shogiground.txt', out));

const inputs = ['package.json', 'package-lock.json', 'build.mjs',
  ...readdirSync(new URL('src/', here)).sort().map((name) => `src/${name}`)];
const digests = Object.fromEntries(inputs.map((name) => [name,
  createHash('sha256').update(readFileSync(new URL(name, here))).digest('hex')]));
writeFileSync(new URL('sources.json', out), JSON.stringify(digests, null, 1) + '\n');
console.log(`shogiboard built: ${Object.keys(digests).length} sources`);
