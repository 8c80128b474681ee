// Module hooks (node:module register) that load the project's TypeScript: esbuild strips the types, file by file.
// Unlike tsx, whose esbuild options keep function names (`keepNames`), this asks for nothing else: keepNames
// wraps every function stored in a variable or property in a `__name` call, a cost paid each time a closure is
// made (docs/performance.md, "TypeScript without tsx's keepNames").
import { readFile } from 'node:fs/promises';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import { transform } from 'esbuild';

const TYPESCRIPT = /\.m?ts$/;
const options = {
  loader: 'ts',
  format: 'esm',
  target: `node${process.versions.node.split('.')[0]}`,
  sourcemap: 'inline',
  tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
};

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !TYPESCRIPT.test(new URL(url).pathname)) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const { code } = await transform(await readFile(path, 'utf8'), { ...options, sourcefile: path });
  return { format: 'module', source: code, shortCircuit: true };
}
