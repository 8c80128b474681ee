/**
 * Moving a causal graph's typed arrays to a worker and back without copying them on the request thread.
 *
 * - An array backed by a SharedArrayBuffer is sent as it is (shared, nothing moves).
 * - An array that owns its whole ArrayBuffer is transferred: its memory moves (zero-copy) to a new array
 *   at once, so the caller's array is detached (length 0) from the moment a worker takes the task (the pool
 *   keeps a waiting task's graph whole) until it settles, and `restoreGraph` puts the returned arrays back into the caller's graph object. So a graph
 *   must not be read, or analysed twice at once, until its analysis settles.
 * - An array that is a view into a larger buffer (e.g. a slice of a pooled Buffer) is copied, so that
 *   transferring never detaches memory the graph does not own.
 */
import { GRAPH_ARRAY_FIELDS } from './graph-shape.ts';
import type { CausalGraphArrays } from './graph-shape.ts';

export interface PackedGraph {
  arrays: CausalGraphArrays;
  transferList: ArrayBuffer[];
  /** The fields whose arrays were transferred, to be put back from the worker's reply. */
  moved: (keyof CausalGraphArrays)[];
}

type GraphArray = CausalGraphArrays[keyof CausalGraphArrays];

export function packGraph(graph: CausalGraphArrays, mode: 'transfer' | 'copy'): PackedGraph {
  const arrays = {} as Record<keyof CausalGraphArrays, GraphArray>;
  const transfer = new Set<ArrayBuffer>();
  const moved: (keyof CausalGraphArrays)[] = [];
  for (const field of GRAPH_ARRAY_FIELDS) {
    const array: GraphArray = graph[field];
    if (!array) continue;
    const buffer = array.buffer;
    if (buffer instanceof SharedArrayBuffer) {
      arrays[field] = array;
    } else if (mode === 'transfer' && array.byteOffset === 0 && array.byteLength === buffer.byteLength && buffer.byteLength > 0) {
      const taken = structuredClone(array, { transfer: [buffer] });
      arrays[field] = taken;
      transfer.add(taken.buffer as ArrayBuffer);
      moved.push(field);
    } else {
      arrays[field] = array.slice();
    }
  }
  return { arrays: arrays as CausalGraphArrays, transferList: [...transfer], moved };
}

/** Puts the moved arrays back: from the worker's reply, or from the packed task when it never left. */
export function restoreGraph(graph: CausalGraphArrays, packed: PackedGraph, returned: CausalGraphArrays): void {
  const target = graph as unknown as Record<keyof CausalGraphArrays, GraphArray>;
  for (const field of packed.moved) target[field] = returned[field];
}

/** Whether the moved arrays are still on this thread (the task was refused before it was posted). */
export function packedArraysIntact(packed: PackedGraph): boolean {
  return packed.moved.every((field) => (packed.arrays[field]?.buffer.byteLength ?? 0) > 0);
}

/** The buffers of a graph the worker hands back: every non-shared one (the caller only keeps the moved ones). */
export function returnableBuffers(graph: CausalGraphArrays): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const field of GRAPH_ARRAY_FIELDS) {
    const buffer = graph[field]?.buffer;
    if (!buffer) continue;
    if (!(buffer instanceof SharedArrayBuffer) && buffer.byteLength > 0) buffers.add(buffer);
  }
  return [...buffers];
}
