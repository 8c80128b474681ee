/** The messages between the pool and its workers. Plain data: structured-clone friendly, no class instances. */
import type { ClockSimulation } from '../anchors/clock-simulation.ts';
import type { AnchorAccuracy } from '../anchors/stability.ts';
import type { ErrorCode } from '../domain/errors.ts';
import type { AnchorPin } from './causal-graph.ts';
import type { CausalGraphArrays } from './graph-shape.ts';
import type { ParadoxReport } from './paradox-report.ts';
import type { ParadoxAnalysisOptions } from './paradoxes.ts';

export interface ParadoxTask {
  kind: 'paradoxes';
  graph: CausalGraphArrays;
  anchors: AnchorPin[];
  options: ParadoxAnalysisOptions;
}

export interface AnchorNoiseTask {
  kind: 'anchor_noise';
  anchorId: string;
  accuracy: AnchorAccuracy;
}

export type AnalysisTask = ParadoxTask | AnchorNoiseTask;

/** An ApiError as it crosses the thread boundary (its class does not survive structured cloning). */
export interface TaskFailure {
  code: ErrorCode;
  message: string;
}

export interface ParadoxTaskResult {
  kind: 'paradoxes';
  report?: ParadoxReport;
  failure?: TaskFailure;
  /** The graph's arrays, transferred back so the caller's graph is whole again. */
  graph: CausalGraphArrays;
}

export interface AnchorNoiseTaskResult {
  kind: 'anchor_noise';
  noise?: ClockSimulation;
  failure?: TaskFailure;
}

export type AnalysisTaskResult = ParadoxTaskResult | AnchorNoiseTaskResult;
