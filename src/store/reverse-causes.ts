/**
 * The effects of each node of a causal graph (who names it as a cause), for a graph kept up to date write by
 * write: when a node stops standing, only the rows that named it are written again. Built once in CSR form
 * from the graph's rows; the rows written later add their links on the side. A link whose row was written
 * again since may still be listed: callers look at such an effect again for nothing, never miss one.
 */
import { STEP_EVERY, type Steps } from '../analysis/time-slices.ts';

const STEP_MASK = STEP_EVERY - 1;

export class ReverseCauses {
  private offsets: Int32Array;
  private effects = new Int32Array(0);
  private readonly added = new Map<number, number[]>();
  private addedCount = 0;

  constructor(private readonly nodes: number) {
    this.offsets = new Int32Array(nodes + 1);
  }

  /** Indexes the rows targets[starts[i] .. ends[i]) of nodes [0, nodes). */
  *indexSteps(starts: Int32Array, ends: Int32Array, targets: Int32Array): Steps<void> {
    const counts = new Int32Array(this.nodes + 1);
    for (let node = 0; node < this.nodes; node++) {
      if ((node & STEP_MASK) === STEP_MASK) yield;
      for (let k = starts[node]!; k < ends[node]!; k++) counts[targets[k]! + 1]!++;
    }
    for (let node = 0; node < this.nodes; node++) counts[node + 1]! += counts[node]!;
    this.offsets = counts.slice();
    this.effects = new Int32Array(counts[this.nodes]!);
    for (let node = 0; node < this.nodes; node++) {
      if ((node & STEP_MASK) === STEP_MASK) yield;
      for (let k = starts[node]!; k < ends[node]!; k++) this.effects[counts[targets[k]!]!++] = node;
    }
  }

  add(cause: number, effect: number): void {
    let list = this.added.get(cause);
    if (!list) this.added.set(cause, (list = []));
    if (list[list.length - 1] === effect) return;
    list.push(effect);
    this.addedCount++;
  }

  *effectsOf(cause: number): Iterable<number> {
    if (cause < this.nodes) for (let k = this.offsets[cause]!; k < this.offsets[cause + 1]!; k++) yield this.effects[k]!;
    yield* this.added.get(cause) ?? [];
  }

  get bytes(): number {
    return this.offsets.byteLength + this.effects.byteLength + this.addedCount * 8 + this.added.size * 64;
  }
}
