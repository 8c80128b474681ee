import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

export interface ServerProcess {
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a script as its own process (so the load generator does not share its event loop) and waits for its port. */
export function startProcess(args: string[], env: Record<string, string>, ready: RegExp, node = process.execPath): Promise<ServerProcess> {
  const child = spawn(node, ['--import', 'tsx', ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = ready.exec(seen);
      if (!match) return;
      child.stdout!.off('data', onData);
      child.stdout!.resume(); // keep draining the request log so the server never blocks on it
      resolve({
        port: Number(match[1]),
        child,
        stop: () =>
          new Promise((done) => {
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before it was ready:\n${seen}`)));
  });
}

export const startTms = (dataDir: string, adminKey: string, node?: string) =>
  startProcess(
    ['src/cli/main.ts', 'serve', '--port', '0', '--data-dir', dataDir, '--admin-key', adminKey, '--rate-limit', '0'],
    { TMS_LOG_LEVEL: 'info' },
    /listening on http:\/\/[^:]+:(\d+)/,
    node,
  );
