// `npm ci` on a clean clone installs exactly package-lock.json: the lockfile must agree with package.json
// and hold every platform's optional binaries (a lockfile written on one platform once lacked them).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const root = join(import.meta.dirname, '..', '..');
const readJson = async (path: string) => JSON.parse(await readFile(path, 'utf8'));

test('npm ci accepts the lockfile as it is (a dry run in a folder with only package.json and package-lock.json)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-npm-ci-'));
  try {
    await copyFile(join(root, 'package.json'), join(dir, 'package.json'));
    await copyFile(join(root, 'package-lock.json'), join(dir, 'package-lock.json'));
    const { stdout } = await promisify(execFile)('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, timeout: 120_000 });
    assert.match(stdout, /added \d+ packages/);
  } catch (error) {
    assert.unreachable(`npm ci refuses the lockfile: ${(error as { stderr?: string }).stderr ?? String(error)}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('every optional platform package of every locked dependency is in the lockfile (not only this machine\'s)', async () => {
  const lock = await readJson(join(root, 'package-lock.json'));
  const missing: string[] = [];
  for (const [path, entry] of Object.entries<{ optionalDependencies?: Record<string, string> }>(lock.packages)) {
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      const nested = `${path}/node_modules/${name}`;
      if (!lock.packages[`node_modules/${name}`] && !lock.packages[nested]) missing.push(`${name} (for ${path || 'the project'})`);
    }
  }
  assert.equal(missing, []);
  assert.ok(lock.packages['node_modules/@bufbuild/buf-darwin-arm64'], 'the platform that was missing once');
});

test.run();
