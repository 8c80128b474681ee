/**
 * What one soak run records as it goes: bench/soak.ts makes it once and passes it to each part that reads or adds to it.
 */
import { Agent } from 'node:http';
import { mulberry32 } from '../../src/synthetic/prng.ts';
import { FACES, type Face } from './faces.ts';
import type { Life } from './lives.ts';
import type { Tally } from './counting.ts';
import type { Branch, CatalogueEvent, Ledger, ReadBack } from './ledger.ts';
import type { Sample } from './sampler.ts';

export interface RunState {
  /** Seconds since the run started. */
  now: () => number;
  rand: () => number;
  pickOne: <T>(items: readonly T[]) => T;
  agent: Agent;

  lives: Life[];
  life: Life | undefined;
  /** Intervals (seconds since start) from a kill until the next process answers /readyz 200. */
  outages: { from: number; to?: number }[];
  kills: { at: number; life: number }[];
  /** Set when the service exits without being killed: the run stops there, failed. */
  exitedOnItsOwn: string | undefined;
  stopOnExit: (error: Error) => void;
  exitedUnkilled: Promise<never>;

  paused: boolean;
  stopping: boolean;
  inFlight: number;
  resume: () => void;
  resumed: Promise<void>;

  tallies: Map<string, Tally>;
  /** Requests answered 2xx per face per second of the run, for the chart. */
  perSecond: Map<Face, number[]>;
  failures: string[];

  ledger: Ledger;
  branches: Branch[];
  catalogue: CatalogueEvent[];
  locations: string[];
  readBacks: ReadBack[];

  samples: Sample[];
  /** Loop-delay p99 of the idle service before the load, and the machine's 1-minute load average at both ends. */
  idleLoop: number[];
  loadAverages: number[];
}

export function newRunState(seed: number, concurrency: number): RunState {
  const runStarted = performance.now();
  // Seeded, so that a failing run can be replayed with its --seed.
  const rand = mulberry32(seed);
  let stopOnExit: (error: Error) => void = () => undefined;
  const exitedUnkilled = new Promise<never>((_, reject) => (stopOnExit = reject));
  exitedUnkilled.catch(() => undefined);
  return {
    now: () => (performance.now() - runStarted) / 1000,
    rand,
    pickOne: <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!,
    agent: new Agent({ keepAlive: true, maxSockets: concurrency * 2 }),
    lives: [],
    life: undefined,
    outages: [],
    kills: [],
    exitedOnItsOwn: undefined,
    stopOnExit,
    exitedUnkilled,
    paused: false,
    stopping: false,
    inFlight: 0,
    resume: () => {},
    resumed: Promise.resolve(),
    tallies: new Map(),
    perSecond: new Map<Face, number[]>(FACES.map((face) => [face, []])),
    failures: [],
    ledger: { branchesCreated: 0, branchesDeleted: 0, manipulations: 0, reverts: 0, anchors: [], unanswered: 0, unansweredApplied: 0, lost: [], verified: 0 },
    branches: [],
    catalogue: [],
    locations: [],
    readBacks: [],
    samples: [],
    idleLoop: [],
    loadAverages: [],
  };
}
