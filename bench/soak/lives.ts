/** The service's lives: a tms process started on the run's LevelDB folder, killed with SIGKILL, started again. */
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, credentials } from '@grpc/grpc-js';
import { startTms, type ServerProcess } from '../lib/tms-process.ts';
import { http, KEY } from './faces.ts';
import type { RunState } from './run-state.ts';

export interface Life {
  index: number;
  pid: number;
  port: number;
  /** Seconds since the run started. */
  spawnedAt: number;
  readyAt: number;
  /** When the load ran on it: after the read-back that follows a restart. */
  loadFrom: number;
  endedAt?: number;
  killed: boolean;
  server: ServerProcess;
  grpc: Client;
}

async function waitReady(run: RunState, port: number): Promise<void> {
  const givesUpAt = Date.now() + 120_000;
  for (;;) {
    const reply = await http(run.agent, port, 'GET', '/readyz', undefined, null);
    if (reply.status === 200) return;
    if (Date.now() > givesUpAt) throw new Error(`tms on port ${port} not ready within 120 s`);
    await sleep(50);
  }
}

/** A wait of the run's own that ends the run at once if the service exits without being killed. */
export const watchfulSleep = (run: RunState, ms: number) => Promise.race([sleep(ms), run.exitedUnkilled]);

export async function startLife(run: RunState, dataDir: string): Promise<Life> {
  const { now, lives } = run;
  const spawnedAt = now();
  const server = await startTms(dataDir, KEY);
  await waitReady(run, server.port);
  const started: Life = {
    index: lives.length + 1,
    pid: server.child.pid!,
    port: server.port,
    spawnedAt,
    readyAt: now(),
    loadFrom: now(),
    killed: false,
    server,
    grpc: new Client(`127.0.0.1:${server.port}`, credentials.createInsecure()),
  };
  lives.push(started);
  run.life = started;
  server.child.once('exit', (code, signal) => {
    if (started.killed || run.stopping) return;
    started.endedAt = now();
    run.exitedOnItsOwn ??= `tms (pid ${started.pid}) exited on its own ${(now() - started.readyAt).toFixed(1)} s into life ${started.index}: exit code ${code}, signal ${signal}`;
    console.error(`soak: ${run.exitedOnItsOwn}`);
    run.stopOnExit(new Error(run.exitedOnItsOwn));
  });
  return started;
}

export async function kill(run: RunState, current: Life): Promise<void> {
  run.outages.push({ from: run.now() });
  current.killed = true;
  const exited = new Promise((resolve) => current.server.child.once('exit', resolve));
  current.server.child.kill('SIGKILL');
  await exited;
  current.endedAt = run.now();
  current.grpc.close();
  await rm(dirname(current.server.logFile), { recursive: true, force: true });
}
