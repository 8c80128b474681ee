// Load generators for the side-by-side benches: autocannon for HTTP, grpc-js for gRPC, and the server CPU
// each request cost, read from /proc.
import autocannon from 'autocannon';
import { readFileSync, statSync } from 'node:fs';
import { credentials, Client, Metadata } from '@grpc/grpc-js';
import { percentile } from './report.ts';
import type { ServerProcess } from './tms-process.ts';

export interface Sample {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time (all threads) the server process spent per request: steadier than req/s on a shared machine. */
  cpuMicros?: number;
}

export interface LoadShape {
  seconds: number;
  connections: number;
}

/** The middle value; of an even count, the mean of the middle two. */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * The median of each round's ratio of `rows` to `baseline` (the same number of rounds, run in turn): the machine is
 * shared, and a round's two rows, measured seconds apart, see the same state of it more often than all rounds do.
 */
export function pairedRatio(rows: readonly Sample[], baseline: readonly Sample[]): number {
  if (rows.length !== baseline.length) throw new Error(`${rows.length} rounds against ${baseline.length} of the baseline`);
  if (baseline.some((sample) => !(sample.rps > 0))) throw new Error('a round of the baseline answered no request: nothing to compare with');
  return median(rows.map((sample, round) => sample.rps / baseline[round]!.rps));
}

/** The median of each figure over rounds (server CPU of the rounds that measured it); errors are summed. */
export function medianSample(samples: Sample[]): Sample {
  return {
    rps: median(samples.map((s) => s.rps)),
    p50: median(samples.map((s) => s.p50)),
    p99: median(samples.map((s) => s.p99)),
    cpuMicros: median(samples.flatMap((s) => (s.cpuMicros === undefined || Number.isNaN(s.cpuMicros) ? [] : [s.cpuMicros]))),
    errors: samples.reduce((n, s) => n + s.errors, 0),
  };
}

/** An ISO 8601 interval from a random minute of 1900–2019 to 2100, so that no two searches share a cached page. */
export function distinctTimeRange(): string {
  const year = 1900 + Math.floor(Math.random() * 120);
  const day = String(1 + Math.floor(Math.random() * 28)).padStart(2, '0');
  const minute = String(Math.floor(Math.random() * 60)).padStart(2, '0');
  return `${year}-01-${day}T00:${minute}:00Z/2100-01-01T00:00:00Z`;
}

export async function cannon(shape: LoadShape, options: autocannon.Options): Promise<Sample> {
  const result = await autocannon({ connections: shape.connections, duration: shape.seconds, ...options });
  return { rps: result.requests.total / shape.seconds, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

/** One unary method called over grpc-js (the client backend services use), `connections` calls in flight. */
export interface GrpcCall {
  path: string;
  /** The request message's bytes, or a function making each call's. */
  request: Buffer | (() => Buffer);
  key?: string;
}

export async function grpcLoad(shape: LoadShape, port: number, call: GrpcCall): Promise<Sample> {
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  const metadata = new Metadata();
  if (call.key) metadata.set('authorization', `Bearer ${call.key}`);
  const bytes = (value: Buffer) => value;
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + shape.seconds * 1000;
  const one = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const request = typeof call.request === 'function' ? call.request() : call.request;
      client.makeUnaryRequest(call.path, bytes, bytes, request, metadata, (error) => {
        if (error) errors++;
        latencies.push(performance.now() - started);
        resolve();
      });
    });
  await Promise.all(
    Array.from({ length: shape.connections }, async () => {
      while (performance.now() < end) await one();
    }),
  );
  client.close();
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / shape.seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}

/** One call's raw reply bytes, to hand a baseline server a reply of the same size. */
export function grpcReply(port: number, call: GrpcCall): Promise<Buffer> {
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  const metadata = new Metadata();
  if (call.key) metadata.set('authorization', `Bearer ${call.key}`);
  const bytes = (value: Buffer) => value;
  return new Promise((resolve, reject) =>
    client.makeUnaryRequest(call.path, bytes, bytes, typeof call.request === 'function' ? call.request() : call.request, metadata, (error, reply) => {
      client.close();
      if (error || !reply) reject(error ?? new Error(`${call.path}: no reply`));
      else resolve(reply);
    }),
  );
}

/** utime + stime of a process in milliseconds, from /proc (Linux); undefined elsewhere. */
function cpuMillis(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** Resolves once `path` has not grown for 300 ms: a server's deferred work (its log) is done. */
async function settled(path: string): Promise<void> {
  let size = statSync(path).size;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = statSync(path).size;
    if (now === size) return;
    size = now;
  }
}

/**
 * Runs the load and charges the server the CPU it spent until its log settled afterwards, so work a server
 * defers past the run (a request log that fell behind) is counted, not hidden.
 */
export async function measured(server: ServerProcess, seconds: number, run: () => Promise<Sample>): Promise<Sample> {
  const before = cpuMillis(server.child.pid);
  const sample = await run();
  await settled(server.logFile);
  const after = cpuMillis(server.child.pid);
  if (before !== undefined && after !== undefined) sample.cpuMicros = ((after - before) * 1000) / (sample.rps * seconds);
  return sample;
}
