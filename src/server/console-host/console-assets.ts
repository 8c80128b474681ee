import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CONSOLE_ROOT, type ConsoleBuild } from './console-build.ts';

export const PAGE_CONTENT_TYPE = 'text/html; charset=utf-8';

export interface Asset {
  body: Buffer;
  /** Set when gzip makes the file smaller. */
  gzip: Buffer | undefined;
  contentType: string;
  etag: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

function asset(body: Buffer, contentType: string, etag: string): Asset {
  const gzip = gzipSync(body, { level: 9 });
  return { body, gzip: gzip.length < body.length ? gzip : undefined, contentType, etag: `"${etag}"` };
}

/** One console build, held in memory: the page and its hashed, immutable files. */
export interface ConsoleAssets {
  /** The page, with `{{nonce}}` where each response puts its own style nonce. */
  pageTemplate: string;
  /** By file name, as the page refers to them under `/console/assets/`. */
  files: ReadonlyMap<string, Asset>;
  firstLoad: readonly string[];
}

export async function loadConsoleAssets(build: ConsoleBuild): Promise<ConsoleAssets> {
  const { dir, manifest } = build;
  const files = new Map<string, Asset>();
  for (const name of manifest.files) {
    const type = CONTENT_TYPES[extname(name)] ?? 'application/octet-stream';
    files.set(name, asset(await readFile(join(dir, name)), type, name));
  }
  const template = await readFile(join(CONSOLE_ROOT, 'index.html'), 'utf8');
  const url = (name: string) => `/console/assets/${name}`;
  const preloads = manifest.firstLoad
    .filter((name) => name.endsWith('.js') && name !== manifest.entryScript)
    .map((name) => `<link rel="modulepreload" href="${url(name)}">`)
    .join('\n    ');
  const html = template
    .replace('<!-- styles -->', manifest.entryStyle ? `<link rel="stylesheet" href="${url(manifest.entryStyle)}">` : '')
    .replace('<!-- scripts -->', `${preloads}\n    <script type="module" src="${url(manifest.entryScript)}"></script>`);
  return { pageTemplate: html, files, firstLoad: manifest.firstLoad };
}
