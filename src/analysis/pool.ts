/**
 * The analysis pool: piscina worker threads for the CPU-heavy work (large paradox checks, nanosecond anchor
 * simulations), so the thread that serves requests never runs it. Small inputs run inline, where a worker
 * round trip (~0.2 ms plus the hand-off) would cost more than the work.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { ClockSimulation } from '../anchors/clock-simulation.ts';
import { simulateUnitNoise } from '../anchors/stability.ts';
import type { AnchorAccuracy } from '../anchors/stability.ts';
import { ApiError } from '../domain/errors.ts';
import type { AnalysisTask, AnchorNoiseTaskResult, ParadoxTaskResult, TaskFailure } from './analysis-task.ts';
import type { AnchorPin } from './causal-graph.ts';
import type { CausalGraphArrays } from './graph-shape.ts';
import { packedArraysIntact, packGraph, restoreGraph } from './graph-transfer.ts';
import type { ParadoxReport } from './paradox-report.ts';
import { analyseParadoxes } from './paradoxes.ts';
import { TaskTurns, abandoned, type TaskRequest } from './task-turns.ts';
import type { ParadoxAnalysisOptions } from './paradoxes.ts';

export interface AnalysisPoolOptions {
  /** Worker threads. Default: 1 on machines with up to 2 cores, else cores − 1 (one is the request thread's). */
  threads?: number;
  /** Tasks that may wait for a worker; one more is refused with resource_exhausted. Default 256. */
  maxQueue?: number;
  /** Paradox checks of fewer events + links than this run inline. Default 20 000. */
  inlineBelow?: number;
}

export interface PoolParadoxOptions extends ParadoxAnalysisOptions {
  /**
   * How the graph's arrays reach the worker, when a worker takes the task. 'transfer' (the default) moves them:
   * from then until the returned promise settles the caller's graph is unusable (its arrays detached), then it
   * is whole again. 'copy' clones them on this thread at that moment, leaving the caller's graph untouched.
   * Either way the graph must not change while its analysis waits for a worker.
   */
  handOff?: 'transfer' | 'copy';
  /** Run on a worker whatever the size (tests, benchmarks). */
  forceWorker?: boolean;
  /** The request it is for: if that has ended by the time a worker is free, the analysis does not run. */
  forRequest?: TaskRequest;
}

export interface AnalysisPoolStats {
  threads: number;
  queueSize: number;
  /** Tasks the workers finished (successfully or not). */
  completed: number;
  /** Tasks run inline on the caller's thread because they were small. */
  inlineCompleted: number;
  /** 0..1: the share of the pool's thread time spent running tasks so far. */
  utilization: number;
}

export const DEFAULT_MAX_QUEUE = 256;
export const DEFAULT_INLINE_BELOW = 20_000;

export function defaultThreadCount(cores = availableParallelism()): number {
  return cores <= 2 ? 1 : cores - 1;
}

const workerEntry = new URL('./worker-entry.mjs', import.meta.url).href;

export class AnalysisPool {
  private readonly piscina: Piscina;
  private readonly maxQueue: number;
  private readonly inlineBelow: number;
  private readonly inFlight = new WeakSet<CausalGraphArrays>();
  private readonly turns: TaskTurns;
  private inlineCompleted = 0;
  private closed = false;

  constructor(options: AnalysisPoolOptions = {}) {
    const threads = options.threads ?? defaultThreadCount();
    if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`threads must be a positive integer, got ${threads}`);
    this.maxQueue = options.maxQueue ?? DEFAULT_MAX_QUEUE;
    this.inlineBelow = options.inlineBelow ?? DEFAULT_INLINE_BELOW;
    this.piscina = new Piscina({
      filename: workerEntry,
      minThreads: threads,
      maxThreads: threads,
      maxQueue: this.maxQueue,
      idleTimeout: Number.POSITIVE_INFINITY,
      // Tasks wait in `turns` and reach piscina only for a free worker. Should one find none, it still waits in
      // order: by default piscina sends a task it cannot hand to a busy worker to the back of its queue, where under
      // steady load it can wait for every later one (a 30-s stall, seen).
      stricterFIFO: true,
    });
    this.turns = new TaskTurns(threads, this.maxQueue, () => queueFull(this.maxQueue));
  }

  async analyseParadoxes(
    graph: CausalGraphArrays,
    anchors: readonly AnchorPin[] = [],
    options: PoolParadoxOptions = {},
  ): Promise<ParadoxReport> {
    const { handOff = 'transfer', forceWorker = false, forRequest, ...analysisOptions } = options;
    if (this.inFlight.has(graph)) {
      throw new ApiError('internal', 'causal graph: already being analysed on a worker (its arrays are there); await that analysis first');
    }
    const size = graph.seconds.length + graph.causeTargets.length;
    if (!forceWorker && size < this.inlineBelow) {
      this.ensureOpen();
      const report = analyseParadoxes(graph, anchors, analysisOptions);
      this.inlineCompleted++;
      return report;
    }
    this.ensureOpen();
    if (forRequest?.ended) throw abandoned();
    this.inFlight.add(graph);
    let result: ParadoxTaskResult;
    let packed: ReturnType<typeof packGraph> | undefined;
    try {
      // The graph leaves this thread only when a worker takes it, not while it waits for one.
      const turn = this.turns.free() ?? (await this.turns.wait(forRequest));
      try {
        this.ensureOpen();
        packed = packGraph(graph, handOff);
        const task: AnalysisTask = { kind: 'paradoxes', graph: packed.arrays, anchors: [...anchors], options: analysisOptions };
        result = (await this.run(task, packed.transferList)) as ParadoxTaskResult;
      } finally {
        turn.done();
      }
    } catch (error) {
      // Refused before it was posted: the arrays never left this thread. Lost with a crashed worker: they stay detached.
      if (packed && packedArraysIntact(packed)) restoreGraph(graph, packed, packed.arrays);
      throw error;
    } finally {
      this.inFlight.delete(graph);
    }
    restoreGraph(graph, packed, result.graph);
    if (result.failure) throw apiErrorOf(result.failure);
    return result.report!;
  }

  /** An anchor's unit noise: nanosecond anchors (about a million simulated samples) on a worker, microsecond ones inline. */
  async simulateUnitNoise(anchorId: string, accuracy: AnchorAccuracy, options: { forceWorker?: boolean } = {}): Promise<ClockSimulation> {
    if (accuracy === 'microsecond' && !options.forceWorker) {
      this.ensureOpen();
      const noise = simulateUnitNoise(anchorId, accuracy);
      this.inlineCompleted++;
      return noise;
    }
    this.ensureOpen();
    // Not skipped for an ended request: every check of the anchor waiting meanwhile shares this simulation.
    const turn = this.turns.free() ?? (await this.turns.wait(undefined));
    let result: AnchorNoiseTaskResult;
    try {
      this.ensureOpen();
      result = (await this.run({ kind: 'anchor_noise', anchorId, accuracy }, [])) as AnchorNoiseTaskResult;
    } finally {
      turn.done();
    }
    if (result.failure) throw apiErrorOf(result.failure);
    return result.noise!;
  }

  stats(): AnalysisPoolStats {
    return {
      threads: this.piscina.maxThreads,
      queueSize: this.turns.waitingCount + this.piscina.queueSize,
      completed: this.piscina.completed,
      inlineCompleted: this.inlineCompleted,
      utilization: this.piscina.utilization,
    };
  }

  /** Why the pool cannot take work now, or undefined when it can (readiness). */
  problem(): string | undefined {
    if (this.closed) return 'the analysis pool is shut down';
    if (this.piscina.threads.length === 0) return 'the analysis pool has no worker threads';
    return undefined;
  }

  /** Lets running tasks finish, then stops the workers. Later calls are refused with `unavailable`. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.piscina.close();
  }

  private ensureOpen(): void {
    if (this.closed) throw new ApiError('unavailable', 'the analysis pool is shut down');
  }

  private async run(task: AnalysisTask, transferList: ArrayBuffer[]): Promise<unknown> {
    try {
      return await this.piscina.run(task, { transferList });
    } catch (error) {
      if (error instanceof Error && /queue is at limit|no task queue available/i.test(error.message)) throw queueFull(this.maxQueue);
      if (error instanceof Error && /terminat|closing|closed/i.test(error.message) && this.closed) {
        throw new ApiError('unavailable', 'the analysis pool is shut down');
      }
      // A worker lost (crashed, out of memory, stopped): a fault of ours, answered as one and logged with its cause.
      throw new Error('analysis worker failed', { cause: error });
    }
  }
}

function queueFull(maxQueue: number): ApiError {
  return new ApiError('resource_exhausted', `the analysis queue is full (${maxQueue} tasks waiting); retry shortly`);
}

function apiErrorOf(failure: TaskFailure): ApiError {
  return new ApiError(failure.code, failure.message);
}
