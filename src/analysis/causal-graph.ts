/**
 * The compact hand-off format between the timeline store and the analysis pool: plain typed arrays, so a
 * graph of millions of events crosses to a worker thread by transfer or shared memory, never as objects.
 *
 * Node i is an event that stands on the timeline now (superseded and reverted versions are history and are
 * left out), or a `gone` node: a position kept so that a graph maintained write by write never renumbers its
 * nodes (docs/performance.md). A gone node has no causes, no node names it as a cause, and every analysis
 * leaves it out, counts included. Causes are already resolved: a cause that was manipulated points at the
 * event that replaced it.
 */
export const EventState = {
  happens: 0,
  cancelled: 1,
  gone: 2,
} as const;
export type EventStateCode = (typeof EventState)[keyof typeof EventState];

export interface CausalGraph {
  /**
   * Index → event id. Stays on the request thread; workers report indexes. It may be shared with later
   * states of the timeline and longer than this graph (their added nodes): index it below `seconds.length`.
   */
  eventIds: readonly string[];
  /** Seconds since 1970-01-01T00:00:00Z of each event's time, as an `InstantPoint` holds them (src/analysis/instants.ts). */
  seconds: Float64Array;
  /** Nanoseconds after `seconds`: 0..999 999 999 within ±2^53 s, beyond that what `InstantPoint` says. */
  nanos: Int32Array;
  /** EventState per event. */
  state: Uint8Array;
  /**
   * CSR: the causes of event i are causeTargets[causeOffsets[i] .. causeOffsets[i + 1]). Length n + 1.
   * With `causeEnds`, they are causeTargets[causeOffsets[i] .. causeEnds[i]) instead: rows need not be
   * in order, and targets outside every row are left-overs that no analysis reads.
   */
  causeOffsets: Int32Array;
  causeTargets: Int32Array;
  /** Length n, when rows are not laid out back to back (see causeOffsets). */
  causeEnds?: Int32Array;
  /** Wall-clock milliseconds when the standing version was written by a manipulation; 0 for untouched events. */
  manipulatedAtMs: Float64Array;
  /** Traveller number for arrival events (see `travel`), -1 for every other event. */
  traveller: Int32Array;
  /** Interned location number per event (equal numbers = same place after normalisation). */
  place: Int32Array;
}

/** An anchor as the paradox analysis sees it: the instant it pins (an `InstantPoint`) and when it was set. */
export interface AnchorPin {
  anchorId: string;
  seconds: number;
  nanos: number;
  setAtMs: number;
}
