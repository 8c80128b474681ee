// Module hooks (node:module register) that load the project's TypeScript: esbuild strips the types, file by file.
// Unlike tsx, whose esbuild options keep function names (`keepNames`), this asks for nothing else: keepNames
// wraps every function stored in a variable or property in a `__name` call, a cost paid each time a closure is
// made (docs/performance.md, "TypeScript without tsx's keepNames").
import { hash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import process from 'node:process';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath, URL } from 'node:url';
import { threadId } from 'node:worker_threads';
import { stop, transform, version } from 'esbuild';

const TYPESCRIPT = /\.m?ts$/;
const options = {
  loader: 'ts',
  format: 'esm',
  target: `node${process.versions.node.split('.')[0]}`,
  sourcemap: 'inline',
  tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
};
/** Transformed files by a hash of what made them, so that a start with nothing changed does not run esbuild. */
const CACHE = fileURLToPath(new URL('../../node_modules/.cache/tms-typescript/', import.meta.url));
const CACHE_KEY = `${version} ${JSON.stringify(options)}`;
/** esbuild runs as a child process of each thread that loads TypeScript; it is stopped once loading goes quiet. */
const STOP_AFTER_MS = 2000;

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !TYPESCRIPT.test(new URL(url).pathname)) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const source = await readFile(path, 'utf8');
  const cached = join(CACHE, `${hash('sha256', `${CACHE_KEY}\0${path}\0${source}`)}.js`);
  const code = (await readFile(cached, 'utf8').catch(() => undefined)) ?? (await transformed(source, path, cached));
  return { format: 'module', source: code, shortCircuit: true };
}

let running = 0;
let idle;

async function transformed(source, path, cached) {
  running++;
  clearTimeout(idle);
  try {
    const { code } = await transform(source, { ...options, sourcefile: path });
    await keep(cached, code);
    return code;
  } finally {
    if (--running === 0) idle = setTimeout(() => running === 0 && void stop(), STOP_AFTER_MS).unref();
  }
}

/** Written whole or not at all (processes starting together share the folder); a folder it cannot write is no cache. */
async function keep(file, code) {
  const partial = `${file}.${process.pid}-${threadId}.partial`;
  try {
    await mkdir(CACHE, { recursive: true });
    await writeFile(partial, code);
    await rename(partial, file);
  } catch {
    // Unwritable (another user, a read-only install): every start transforms again.
  }
}
