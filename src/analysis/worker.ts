/**
 * The analysis worker: runs one task with the pure algorithms and replies. Failures come back as data
 * (code and message) because an ApiError loses its class and code when cloned; a paradox task always hands
 * the graph's buffers back, whether it succeeded or not.
 */
import { move } from 'piscina';
import { simulateUnitNoise } from '../anchors/stability.ts';
import { ApiError } from '../domain/errors.ts';
import type { AnalysisTask, AnalysisTaskResult, TaskFailure } from './analysis-task.ts';
import { returnableBuffers } from './graph-transfer.ts';
import { analyseParadoxes } from './paradoxes.ts';

const transferableSymbol = Symbol.for('Piscina.transferable');
const valueSymbol = Symbol.for('Piscina.valueOf');

function failureOf(error: unknown): TaskFailure {
  if (error instanceof ApiError) return { code: error.code, message: error.message };
  return { code: 'internal', message: `analysis failed: ${error instanceof Error ? error.message : String(error)}` };
}

export default function runAnalysisTask(task: AnalysisTask): unknown {
  if (task.kind === 'anchor_noise') {
    try {
      return { kind: 'anchor_noise', noise: simulateUnitNoise(task.anchorId, task.accuracy) } satisfies AnalysisTaskResult;
    } catch (error) {
      return { kind: 'anchor_noise', failure: failureOf(error) } satisfies AnalysisTaskResult;
    }
  }
  let result: AnalysisTaskResult;
  try {
    result = { kind: 'paradoxes', report: analyseParadoxes(task.graph, task.anchors, task.options), graph: task.graph };
  } catch (error) {
    result = { kind: 'paradoxes', failure: failureOf(error), graph: task.graph };
  }
  // Piscina transfers (rather than clones) what a reply lists under its transferable symbol.
  return move({ [transferableSymbol]: returnableBuffers(task.graph), [valueSymbol]: result } as never);
}
