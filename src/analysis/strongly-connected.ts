/**
 * Tarjan's strongly connected components over an adjacency whose node i has the edges
 * targets[starts[i] .. ends[i]) (CSR: ends = starts shifted by one), iterative: an explicit call stack of
 * (node, next edge) replaces recursion, so a causal chain of millions of events cannot overflow the stack.
 * Calls `onComponent` with each component's members (a view that is only valid during the call), in the
 * order Tarjan completes them. Linear in nodes + edges.
 */
export function forEachStronglyConnectedComponent(
  starts: Int32Array,
  ends: Int32Array,
  targets: Int32Array,
  onComponent: (members: Int32Array) => void,
): void {
  const count = ends.length;
  const order = new Int32Array(count).fill(-1);
  const low = new Int32Array(count);
  const onStack = new Uint8Array(count);
  const stack = new Int32Array(count);
  const callNode = new Int32Array(count);
  const callEdge = new Int32Array(count);
  let stackSize = 0;
  let nextOrder = 0;

  for (let root = 0; root < count; root++) {
    if (order[root] !== -1) continue;
    order[root] = low[root] = nextOrder++;
    stack[stackSize++] = root;
    onStack[root] = 1;
    callNode[0] = root;
    callEdge[0] = starts[root]!;
    let depth = 1;

    while (depth > 0) {
      const node = callNode[depth - 1]!;
      const edge = callEdge[depth - 1]!;
      if (edge < ends[node]!) {
        callEdge[depth - 1] = edge + 1;
        const next = targets[edge]!;
        if (order[next] === -1) {
          order[next] = low[next] = nextOrder++;
          stack[stackSize++] = next;
          onStack[next] = 1;
          callNode[depth] = next;
          callEdge[depth] = starts[next]!;
          depth++;
        } else if (onStack[next] === 1 && order[next]! < low[node]!) {
          low[node] = order[next]!;
        }
        continue;
      }
      depth--;
      if (low[node] === order[node]) {
        let start = stackSize - 1;
        while (stack[start] !== node) start--;
        for (let k = start; k < stackSize; k++) onStack[stack[k]!] = 0;
        onComponent(stack.subarray(start, stackSize));
        stackSize = start;
      }
      if (depth > 0) {
        const parent = callNode[depth - 1]!;
        if (low[node]! < low[parent]!) low[parent] = low[node]!;
      }
    }
  }
}
