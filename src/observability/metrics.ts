import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AnalysisPoolStats } from '../analysis/pool.ts';
import type { CacheCounts } from '../store/metered-cache.ts';

export interface CacheCountsSource {
  cacheCounts(): CacheCounts[];
}

export interface PoolStatsSource {
  stats(): Pick<AnalysisPoolStats, 'threads' | 'queueSize' | 'completed' | 'inlineCompleted'>;
}

/** Prometheus metrics for one server instance (its own registry, so tests can run several servers). */
export class Metrics {
  readonly registry = new Registry();
  /** Each request's series, by route, then protocol, then code: the labels are the same few strings every time. */
  private readonly series = new Map<string, Map<string, Map<string, RequestSeries>>>();
  private readonly latency = new Histogram({
    name: 'tms_request_duration_seconds',
    help: 'Request latency by route, protocol and result code.',
    labelNames: ['route', 'protocol', 'code'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  constructor(pool?: PoolStatsSource, caches?: CacheCountsSource) {
    collectDefaultMetrics({ register: this.registry, prefix: 'tms_' });
    registerRequestCounter(this.registry, this.series);
    if (caches) this.registerCaches(caches);
    if (pool) {
      new Gauge({
        name: 'tms_analysis_queue_size',
        help: 'Tasks waiting for an analysis worker.',
        registers: [this.registry],
        collect() {
          this.set(pool.stats().queueSize);
        },
      });
      new Gauge({
        name: 'tms_analysis_threads',
        help: 'Analysis worker threads.',
        registers: [this.registry],
        collect() {
          this.set(pool.stats().threads);
        },
      });
      new Counter({
        name: 'tms_analysis_tasks_completed_total',
        help: 'Analysis tasks completed, by where they ran: a worker thread, or inline on the request thread (small ones).',
        labelNames: ['ran'] as const,
        registers: [this.registry],
        collect() {
          const { completed, inlineCompleted } = pool.stats();
          this.reset();
          this.inc({ ran: 'worker' }, completed);
          this.inc({ ran: 'inline' }, inlineCompleted);
        },
      });
    }
  }

  /** The store keeps its own counts; each scrape copies them into labelled series (one per cache). */
  private registerCaches(source: CacheCountsSource): void {
    const series = (name: string, help: string, kind: typeof Counter | typeof Gauge, field: keyof Omit<CacheCounts, 'name'>) =>
      new kind({
        name,
        help,
        labelNames: ['cache'] as const,
        registers: [this.registry],
        collect() {
          this.reset();
          for (const counts of source.cacheCounts()) this.inc({ cache: counts.name }, counts[field]);
        },
      });
    series('tms_cache_hits_total', 'Cache lookups answered from the cache, by cache.', Counter, 'hits');
    series('tms_cache_misses_total', 'Cache lookups the cache could not answer, by cache.', Counter, 'misses');
    series('tms_cache_entries', 'Entries held, by cache.', Gauge, 'entries');
    series('tms_cache_bytes', 'Estimated bytes held, by cache.', Gauge, 'bytes');
    series('tms_cache_max_bytes', 'The byte budget, by cache.', Gauge, 'maxBytes');
  }

  /**
   * prom-client hashes and checks a label object on every call, even through a child from `labels()`; so the
   * count is kept here and copied into the counter when scraped, and only the latency goes to prom-client.
   */
  observe(route: string, protocol: string, code: string, seconds: number): void {
    const series = this.seriesOf(route, protocol, code);
    series.count += 1;
    series.latency.observe(seconds);
  }

  /** A request no handler timed (an answer Node's HTTP parser called for): counted, with no latency. */
  count(route: string, protocol: string, code: string): void {
    this.seriesOf(route, protocol, code).count += 1;
  }

  private seriesOf(route: string, protocol: string, code: string): RequestSeries {
    let byProtocol = this.series.get(route);
    if (!byProtocol) this.series.set(route, (byProtocol = new Map()));
    let byCode = byProtocol.get(protocol);
    if (!byCode) byProtocol.set(protocol, (byCode = new Map()));
    let series = byCode.get(code);
    if (!series) {
      const labels = { route, protocol, code };
      byCode.set(code, (series = { labels, count: 0, latency: this.latency.labels(labels) }));
    }
    return series;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

interface RequestSeries {
  labels: { route: string; protocol: string; code: string };
  count: number;
  latency: { observe(seconds: number): void };
}

/** `tms_requests_total`, from the counts `Metrics.observe` keeps. */
function registerRequestCounter(registry: Registry, series: Map<string, Map<string, Map<string, RequestSeries>>>): void {
  new Counter({
    name: 'tms_requests_total',
    help: 'Requests served, by route (RPC or REST path template), protocol and result code.',
    labelNames: ['route', 'protocol', 'code'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const byProtocol of series.values()) {
        for (const byCode of byProtocol.values()) for (const { labels, count } of byCode.values()) this.inc(labels, count);
      }
    },
  });
}
