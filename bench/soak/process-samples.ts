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

/**
 * The loop-delay p99 (prom-client resets its histogram at every scrape: each value covers the second since the
 * last) and the bytes the caches hold, from one scrape of /metrics.
 */
export async function scrape(agent: Agent, port: number): Promise<{ loopP99?: number; cacheMiB?: number; heapMiB?: number; heapTotalMiB?: number; externalMiB?: number }> {
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
  };
}
export const loopP99 = async (agent: Agent, port: number) => (await scrape(agent, port)).loopP99;
