import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RUN_TYPESCRIPT } from '../../src/typescript/node-options.ts';

export interface ServeProcess {
  port: number;
  /** Everything the process has written so far: its stderr (the banner, start-up notices), then its stdout. */
  output(): string;
  /** Its stdout alone: the JSON log, one line per request. */
  stdout(): string;
  /** The JSON log's lines, parsed (a line cut short by the read is left for the next call). */
  logEntries(): Record<string, unknown>[];
  /** Sends the signal (SIGTERM by default) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A start takes about a second; far beyond that, something is wrong and the test must fail, not hang. */
const READY_WITHIN_MS = 60_000;

export interface ServeOptions {
  args?: string[];
  env?: Record<string, string>;
  /** Pass `--port 0 --data-dir <dataDir>` (the default); false leaves both to the environment. */
  flags?: boolean;
}

/**
 * The real command `npm start` runs, as its own process, with stdout (the log) going to `<dataDir>.stdout` as an
 * operator's redirect would (a file, not a pipe a test must drain), and stderr kept here. Resolves once it is
 * listening.
 */
export async function startServeProcess(dataDir: string, { args = [], env = {}, flags = true }: ServeOptions = {}): Promise<ServeProcess> {
  const stdoutFile = `${dataDir}.stdout`;
  const out = openSync(stdoutFile, 'w');
  const where = flags ? ['--port', '0', '--data-dir', dataDir] : [];
  const child = spawn(process.execPath, [...RUN_TYPESCRIPT, join('src', 'cli', 'main.ts'), 'serve', ...where, ...args], {
    stdio: ['ignore', out, 'pipe'],
    env: { ...process.env, ...env },
  });
  closeSync(out);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const stdout = () => readFileSync(stdoutFile, 'utf8');
  const output = () => stderr + stdout();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const givesUpAt = Date.now() + READY_WITHIN_MS;
  const port = await new Promise<number>((resolve, reject) => {
    const poll = setInterval(() => {
      const seen = output();
      const match = /listening on https?:\/\/[^:]+:(\d+)/.exec(seen);
      if (match && seen.includes('/openapi.json')) {
        clearInterval(poll);
        resolve(Number(match[1]));
      } else if (Date.now() > givesUpAt) {
        clearInterval(poll);
        child.kill('SIGKILL');
        reject(new Error(`server not listening within ${READY_WITHIN_MS / 1000} s:\n${seen}`));
      }
    }, 20);
    void exited.then(() => {
      clearInterval(poll);
      reject(new Error(`server exited before listening:\n${output()}`));
    });
  });
  return {
    port,
    output,
    stdout,
    logEntries: () =>
      stdout()
        .split('\n')
        .filter((line) => line.startsWith('{') && line.endsWith('}'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
