/**
 * What a causal graph node holds for an event version, shared by the full build and the graph kept write by
 * write, so that both number places and travellers, and read times and states, the same way.
 */
import { EventState, type CausalGraph, type EventStateCode } from '../analysis/causal-graph.ts';
import { instantPoint } from '../analysis/instants.ts';
import { parseInstant } from '../time/index.ts';
import { locationWords } from './location-words.ts';
import type { EventRecord } from './types.ts';

/** Place and traveller numbers of one graph: equal numbers are the same place (after normalisation) or traveller. */
export class NodeNumbering {
  private placeIndex: Map<string, number> | undefined;
  readonly travellers = new Map<string, number>();

  /** `placeNames`: the genesis snapshot's, numbered as it numbers them (taken over, not copied). */
  constructor(readonly placeNames: string[]) {}

  /** The number of a place name, adding it the first time it is seen. */
  placeNumber(name: string): number {
    this.placeIndex ??= new Map(this.placeNames.map((known, i) => [known, i]));
    let number = this.placeIndex.get(name);
    if (number === undefined) {
      number = this.placeNames.length;
      this.placeNames.push(name);
      this.placeIndex.set(name, number);
    }
    return number;
  }

  placeOf(location: string): number {
    return this.placeNumber(locationWords(location).join(' '));
  }

  /** Arrivals (see `travel`) are numbered by traveller; every other event is -1. */
  travellerOf(record: EventRecord): number {
    if (record.kind !== 'arrival' || record.traveller === undefined) return -1;
    let number = this.travellers.get(record.traveller);
    if (number === undefined) {
      number = this.travellers.size;
      this.travellers.set(record.traveller, number);
    }
    return number;
  }
}

export interface NodeFields {
  seconds: number;
  nanos: number;
  state: EventStateCode;
  place: number;
  traveller: number;
  manipulatedAtMs: number;
}

export function recordNodeFields(record: EventRecord, numbering: NodeNumbering): NodeFields {
  const time = parseInstant(record.time);
  const { seconds, nanos } = instantPoint(time.seconds, time.nanos);
  const manipulated = record.supersedes !== undefined && (record.status === 'manipulated' || record.status === 'cancelled');
  return {
    seconds,
    nanos,
    state: record.status === 'cancelled' ? EventState.cancelled : EventState.happens,
    place: numbering.placeOf(record.location),
    traveller: numbering.travellerOf(record),
    manipulatedAtMs: manipulated && record.created_at ? Date.parse(record.created_at) || 0 : 0,
  };
}

/** The arrays a node's fields are kept in. */
export type NodeColumns = Pick<CausalGraph, 'seconds' | 'nanos' | 'place' | 'traveller' | 'manipulatedAtMs'>;

/** Writes every field of a node but its state, which each caller decides. */
export function writeNodeFields(columns: NodeColumns, node: number, fields: NodeFields): void {
  columns.seconds[node] = fields.seconds;
  columns.nanos[node] = fields.nanos;
  columns.place[node] = fields.place;
  columns.traveller[node] = fields.traveller;
  columns.manipulatedAtMs[node] = fields.manipulatedAtMs;
}
