/** What the service process shows of itself: its RSS and CPU time under /proc, and its loop delay and memory on /metrics. */
import { readFile } from 'node:fs/promises';
import { request, type Agent } from 'node:http';

/** Nanoseconds the process's main thread has run, and waited runnable, since it started. */
export async function schedstat(pid: number): Promise<{ run: number; wait: number } | undefined> {
  try {
    const [run, wait] = (await readFile(`/proc/${pid}/schedstat`, 'utf8')).split(' ').map(Number);
    return run === undefined || wait === undefined ? undefined : { run, wait };
  } catch {
    return undefined;
  }
}

export async function rssMiB(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
    return kib === undefined ? undefined : Number(kib) / 1024;
  } catch {
    return undefined;
  }
}

/** Garbage collections since the process started, from prom-client's `nodejs_gc_duration_seconds` histogram. */
export interface GcCounts {
  /** Full (mark-compact) collections. */
  major: number;
  /** Pauses of any kind longer than 10 ms: the ones that show in a 20-ms loop-delay limit. */
  over10ms: number;
}

export function gcCounts(metrics: string): GcCounts | undefined {
  const counts = [...metrics.matchAll(/^tms_nodejs_gc_duration_seconds_count\{kind="(\w+)"\} ([0-9.e+-]+)$/gm)];
  if (counts.length === 0) return undefined;
  const within10ms = [...metrics.matchAll(/^tms_nodejs_gc_duration_seconds_bucket\{le="0\.01",kind="\w+"\} ([0-9.e+-]+)$/gm)];
  const total = counts.reduce((n, m) => n + Number(m[2]), 0);
  return {
    major: Number(counts.find((m) => m[1] === 'major')?.[2] ?? 0),
    over10ms: total - within10ms.reduce((n, m) => n + Number(m[1]), 0),
  };
}

/**
 * The loop-delay p99 (prom-client resets its histogram at every scrape: each value covers the second since the
 * last), the bytes the caches hold, the heap and the collections so far, from one scrape of /metrics.
 */
export async function scrape(
  agent: Agent,
  port: number,
): Promise<{ loopP99?: number; cacheMiB?: number; heapMiB?: number; heapTotalMiB?: number; externalMiB?: number; gc?: GcCounts }> {
  const reply = await new Promise<string | undefined>((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/metrics', agent, timeout: 5000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(res.statusCode === 200 ? text : undefined));
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
  if (!reply) return {};
  const match = /^tms_nodejs_eventloop_lag_p99_seconds ([0-9.e+-]+)$/m.exec(reply);
  const caches = [...reply.matchAll(/^tms_cache_bytes\{[^}]*\} ([0-9.e+-]+)$/gm)].map((m) => Number(m[1]));
  const mibOf = (name: string) => {
    const found = new RegExp(`^tms_${name} ([0-9.e+-]+)$`, 'm').exec(reply);
    return found ? Number(found[1]) / 1024 / 1024 : undefined;
  };
  return {
    heapMiB: mibOf('nodejs_heap_size_used_bytes'),
    heapTotalMiB: mibOf('nodejs_heap_size_total_bytes'),
    externalMiB: mibOf('nodejs_external_memory_bytes'),
    loopP99: match ? Number(match[1]) * 1000 : undefined,
    cacheMiB: caches.length ? caches.reduce((a, b) => a + b, 0) / 1024 / 1024 : undefined,
    gc: gcCounts(reply),
  };
}
export const loopP99 = async (agent: Agent, port: number) => (await scrape(agent, port)).loopP99;
