import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUN_TYPESCRIPT } from '../../src/typescript/node-options.ts';

const root = join(import.meta.dirname, '..', '..');
/** A 10^6-event store opens in well under a minute; beyond this something is wrong. */
const READY_WITHIN_MS = 180_000;

export interface ServerProcess {
  port: number;
  child: ChildProcess;
  /** The file its stdout (the request log) goes to. */
  logFile: string;
  stop(): Promise<void>;
}

/**
 * Starts a script as its own process (so the load generator does not share its event loop) and waits for
 * its port. Its stdout (the request log) goes to a file, as in production: a pipe would make the load
 * generator read every log line, taking CPU from the load it should generate.
 */
export function startProcess(args: string[], env: Record<string, string>, ready: RegExp, node = process.execPath): Promise<ServerProcess> {
  const logDir = mkdtempSync(join(tmpdir(), 'tms-bench-log-'));
  const logFile = join(logDir, 'stdout.log');
  const out = openSync(logFile, 'w');
  const child = spawn(node, [...RUN_TYPESCRIPT, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', out, 'pipe'] });
  closeSync(out);
  // tms writes its banner ("listening on …") to stderr, which is shown here as it comes.
  let stderr = '';
  let listening = false;
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    if (!listening) stderr += chunk;
    process.stderr.write(chunk);
  });
  const givesUpAt = Date.now() + READY_WITHIN_MS;
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      const seen = stderr + readFileSync(logFile, 'utf8');
      const match = ready.exec(seen);
      if (!match && Date.now() > givesUpAt) {
        clearInterval(poll);
        child.off('exit', early);
        child.kill('SIGKILL');
        rmSync(logDir, { recursive: true, force: true });
        reject(new Error(`${args.join(' ')} was not ready within ${READY_WITHIN_MS / 1000} s:\n${seen}`));
        return;
      }
      if (!match) return;
      listening = true;
      clearInterval(poll);
      child.off('exit', early);
      resolve({
        port: Number(match[1]),
        child,
        logFile,
        stop: () =>
          new Promise((done) => {
            child.once('exit', () => {
              rmSync(logDir, { recursive: true, force: true });
              done();
            });
            child.kill('SIGTERM');
          }),
      });
    }, 50);
    const early = (code: number | null) => {
      clearInterval(poll);
      const seen = stderr + readFileSync(logFile, 'utf8');
      rmSync(logDir, { recursive: true, force: true });
      reject(new Error(`${args.join(' ')} exited (${code}) before it was ready:\n${seen}`));
    };
    child.once('exit', early);
  });
}

/**
 * tms as `npm start` runs it, with the same malloc setting and young generation (docs/decisions.md: shared memory of
 * the causal graph; Node 24's young generation).
 */
export const startTms = (dataDir: string, adminKey: string, node?: string) =>
  startProcess(
    ['--max-semi-space-size=16', 'src/cli/main.ts', 'serve', '--port', '0', '--data-dir', dataDir, '--admin-key', adminKey, '--rate-limit', '0'],
    { TMS_LOG_LEVEL: 'info', MALLOC_MMAP_THRESHOLD_: '1048576' },
    /listening on http:\/\/[^:]+:(\d+)/,
    node,
  );
