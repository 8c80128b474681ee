// Builds the try-it console (console/ → node_modules/.cache/tms-console/<source hash>/) unless a build of the same sources
// exists, and prints what the first page load costs. Run by `npm install` (prepare) and `npm run build:console`.
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureConsoleBuild } from '../src/server/console-host/console-build.ts';

const started = performance.now();
const { dir, manifest } = await ensureConsoleBuild();
const gzipped = manifest.firstLoad.reduce((sum, name) => sum + gzipSync(readFileSync(join(dir, name)), { level: 9 }).length, 0);
console.log(
  `console: ${dir} (${manifest.files.length} files; first load ${(gzipped / 1024).toFixed(1)} KiB gzipped; ${Math.round(performance.now() - started)} ms)`,
);
