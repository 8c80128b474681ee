import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The console's sources: `console/` beside `src/`. */
export const CONSOLE_ROOT = fileURLToPath(new URL('../../../console/', import.meta.url));
/**
 * Builds are generated files, kept out of the source tree with the other installed and cached things (npm ci
 * clears them; the next start or `npm run build:console` makes them again).
 */
const DIST = fileURLToPath(new URL('../../../node_modules/.cache/tms-console/', import.meta.url));
const ENTRY = join(CONSOLE_ROOT, 'src', 'main.tsx');
/**
 * Everything a build reads: the console, the server modules it bundles (the service list and the generated
 * descriptors), and the locked packages. A new import from `src/` into the console belongs here too.
 */
const INPUTS = [
  join(CONSOLE_ROOT, 'src'),
  join(CONSOLE_ROOT, 'index.html'),
  fileURLToPath(new URL('../../gen/tms/', import.meta.url)),
  fileURLToPath(new URL('../connect/services.ts', import.meta.url)),
  fileURLToPath(new URL('../../../package-lock.json', import.meta.url)),
];

/** What a build wrote: file names relative to its folder, and which of them the page loads first. */
export interface ConsoleManifest {
  sourceHash: string;
  entryScript: string;
  entryStyle: string | undefined;
  /** Every file the first page load fetches (the entry script, its static imports, the stylesheet). */
  firstLoad: string[];
  files: string[];
}

export interface ConsoleBuild {
  dir: string;
  manifest: ConsoleManifest;
}

async function filesUnder(path: string): Promise<string[]> {
  const info = await stat(path);
  if (!info.isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  const nested = await Promise.all(entries.map((entry) => filesUnder(join(path, entry.name))));
  return nested.flat().sort();
}

/** A digest of every input's path and bytes: a build is reused exactly while its inputs are unchanged. */
export async function consoleSourceHash(): Promise<string> {
  const hash = createHash('sha256');
  for (const input of INPUTS) {
    for (const file of await filesUnder(input)) {
      hash.update(relative(CONSOLE_ROOT, file)).update('\0').update(await readFile(file)).update('\0');
    }
  }
  return hash.digest('hex').slice(0, 16);
}

async function readManifest(dir: string): Promise<ConsoleManifest | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as ConsoleManifest;
  } catch {
    return undefined;
  }
}

/**
 * The build for the current sources, made now if there is none. Builds land in `node_modules/.cache/tms-console/<hash>/`
 * by an atomic rename, so processes that start together (tests, several nodes on one disk) never see a
 * half-written build; the loser of a race keeps the winner's.
 */
export async function ensureConsoleBuild(): Promise<ConsoleBuild> {
  const sourceHash = await consoleSourceHash();
  const dir = join(DIST, sourceHash);
  const existing = await readManifest(dir);
  if (existing) return { dir, manifest: existing };
  const temp = join(DIST, `.tmp-${randomBytes(6).toString('hex')}`);
  try {
    await buildInto(temp, sourceHash);
    await rename(temp, dir).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
  await removeOtherBuilds(sourceHash);
  const manifest = await readManifest(dir);
  if (!manifest) throw new Error(`console build in ${dir} has no manifest`);
  return { dir, manifest };
}

async function removeOtherBuilds(keep: string): Promise<void> {
  const names = await readdir(DIST).catch(() => [] as string[]);
  // Temporary folders of builds still running elsewhere are left to their owners.
  await Promise.all(names.filter((name) => name !== keep && !name.startsWith('.')).map((name) => rm(join(DIST, name), { recursive: true, force: true })));
}

async function buildInto(outdir: string, sourceHash: string): Promise<void> {
  // Imported only when a build is needed: the request thread of a server whose console is built never loads esbuild.
  const esbuild = await import('esbuild').catch(() => {
    throw new Error('the console is not built and esbuild is not installed: run `npm install` (which builds it), or `npm run build:console`');
  });
  await mkdir(outdir, { recursive: true });
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox115', 'safari16'],
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    outdir,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: CONSOLE_ROOT,
  });
  // esbuild keeps a helper process for further builds; a server makes none.
  await esbuild.stop();
  const outputs = result.metafile.outputs;
  // Metafile paths are relative to absWorkingDir.
  const name = (path: string) => relative(outdir, join(CONSOLE_ROOT, path));
  const entry = Object.entries(outputs).find(([, output]) => output.entryPoint !== undefined);
  if (!entry) throw new Error('console build produced no entry script');
  const [entryPath, entryOutput] = entry;
  const firstLoad = new Set<string>([name(entryPath)]);
  const pending = [entryPath];
  while (pending.length > 0) {
    const output = outputs[pending.pop()!];
    for (const imported of output?.imports ?? []) {
      if (imported.kind !== 'import-statement' || firstLoad.has(name(imported.path))) continue;
      firstLoad.add(name(imported.path));
      pending.push(imported.path);
    }
  }
  const entryStyle = entryOutput.cssBundle === undefined ? undefined : name(entryOutput.cssBundle);
  if (entryStyle) firstLoad.add(entryStyle);
  const manifest: ConsoleManifest = {
    sourceHash,
    entryScript: name(entryPath),
    entryStyle,
    firstLoad: [...firstLoad],
    files: Object.keys(outputs).map(name),
  };
  await writeFile(join(outdir, 'manifest.json'), JSON.stringify(manifest, null, 2));
}
