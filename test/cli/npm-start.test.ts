// `npm start`, the README's command, as an operator runs it: signals sent to npm reach the service, and with
// `--silent` its stdout is the JSON log alone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/eventually.ts';

const root = join(import.meta.dirname, '..', '..');

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

test('SIGTERM to `npm start` shuts the service down gracefully; `npm start --silent` writes only JSON to stdout', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-npm-start-'));
  const stdoutFile = join(dir, 'stdout');
  const out = openSync(stdoutFile, 'w');
  const npm = spawn('npm', ['start', '--silent', '--', '--port', '0', '--data-dir', join(dir, 'data')], { cwd: root, stdio: ['ignore', out, 'pipe'], env: process.env });
  closeSync(out);
  let stderr = '';
  npm.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  try {
    await eventually('npm start listening', () => /listening on http:\/\/127\.0\.0\.1:\d+/.test(stderr), 60_000, 50);
    const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)![1]);
    assert.is(await refused(port), false, 'serving');

    npm.kill('SIGTERM');
    assert.is(await exited, 0, `npm's exit code: ${stderr}`);
    await eventually('the port closed', () => refused(port), 30_000, 50);
    const lines = readFileSync(stdoutFile, 'utf8').split('\n').filter(Boolean);
    assert.ok(
      lines.every((line) => line.startsWith('{') && JSON.parse(line)),
      `stdout is JSON lines only:\n${lines.join('\n')}`,
    );
    assert.ok(
      lines.some((line) => (JSON.parse(line) as { msg?: string }).msg === 'shutting down: finishing in-flight requests'),
      'the service itself got the signal and shut down',
    );
  } finally {
    npm.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
