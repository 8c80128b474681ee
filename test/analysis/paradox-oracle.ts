// A brute-force paradox finder, written straight from the definitions in semantics.md §4 and independent of
// src/analysis: bigint nanosecond times, every pair compared, Floyd–Warshall reachability for loops.
import type { AnchorPin, CausalGraph } from '../../src/analysis/causal-graph.ts';
import type { AnalysisWindow } from '../../src/analysis/instants.ts';

const HOUR_NS = 3_600_000_000_000n;

export interface OracleParadox {
  kind: string;
  events: number[];
  anchorId?: string;
}

export function paradoxKey(kind: string, events: readonly number[], anchorId?: string): string {
  return `${kind}|${anchorId ?? ''}|${[...events].sort((a, b) => a - b).join(',')}`;
}

export function oracleParadoxes(graph: CausalGraph, anchors: readonly AnchorPin[], window?: AnalysisWindow): OracleParadox[] {
  const count = graph.seconds.length;
  const time = (event: number): bigint => BigInt(graph.seconds[event]!) * 1_000_000_000n + BigInt(graph.nanos[event]!);
  const instant = (point: { seconds: number | bigint; nanos: number }): bigint => BigInt(point.seconds) * 1_000_000_000n + BigInt(point.nanos);
  const happens = (event: number): boolean => graph.state[event] === 0;
  const links = new Set<string>();
  const linkList: [effect: number, cause: number][] = [];
  for (let effect = 0; effect < count; effect++) {
    for (let k = graph.causeOffsets[effect]!; k < graph.causeOffsets[effect + 1]!; k++) {
      const cause = graph.causeTargets[k]!;
      if (links.has(`${effect}<${cause}`)) continue;
      links.add(`${effect}<${cause}`);
      linkList.push([effect, cause]);
    }
  }
  const found: OracleParadox[] = [];

  for (const [effect, cause] of linkList) {
    if (happens(effect) && happens(cause) && time(cause) > time(effect)) found.push({ kind: 'causality_violation', events: [effect, cause] });
  }

  for (let effect = 0; effect < count; effect++) {
    if (!happens(effect)) continue;
    const cancelled = linkList.filter(([e, c]) => e === effect && !happens(c)).map(([, c]) => c);
    if (cancelled.length > 0) found.push({ kind: 'orphaned_effect', events: [effect, ...cancelled] });
  }

  const reach = Array.from({ length: count }, () => new Array<boolean>(count).fill(false));
  for (const [effect, cause] of linkList) reach[effect]![cause] = true;
  for (let via = 0; via < count; via++) {
    for (let from = 0; from < count; from++) {
      for (let to = 0; to < count; to++) {
        if (reach[from]![via] && reach[via]![to]) reach[from]![to] = true;
      }
    }
  }
  const loopKeys = new Set<string>();
  for (let event = 0; event < count; event++) {
    const members = [event];
    for (let other = 0; other < count; other++) {
      if (other !== event && reach[event]![other] && reach[other]![event]) members.push(other);
    }
    if (members.length === 1 && !links.has(`${event}<${event}`)) continue;
    const key = paradoxKey('causal_loop', members);
    if (!loopKeys.has(key)) {
      loopKeys.add(key);
      found.push({ kind: 'causal_loop', events: members });
    }
  }

  for (const anchor of anchors) {
    const pinned = instant(anchor);
    for (const [effect, cause] of linkList) {
      if (time(cause) <= pinned && graph.manipulatedAtMs[cause]! > anchor.setAtMs && happens(effect) && time(effect) > pinned) {
        found.push({ kind: 'anchor_breach', events: [cause, effect], anchorId: anchor.anchorId });
      }
    }
  }

  for (let a = 0; a < count; a++) {
    for (let b = a + 1; b < count; b++) {
      const arrivals = graph.traveller[a]! >= 0 && graph.traveller[b]! >= 0 && happens(a) && happens(b);
      if (!arrivals || graph.traveller[a] !== graph.traveller[b] || graph.place[a] !== graph.place[b]) continue;
      const gap = time(a) > time(b) ? time(a) - time(b) : time(b) - time(a);
      if (gap < HOUR_NS) found.push({ kind: 'self_encounter', events: [a, b] });
    }
  }

  if (window === undefined) return found;
  const from = instant(window.start);
  const to = instant(window.end);
  return found.filter((paradox) => paradox.events.some((event) => time(event) >= from && time(event) <= to));
}
