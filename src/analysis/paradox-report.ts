/** What a paradox check reports: the paradoxes it lists, how many it found, and the verdict they add up to. */

export type ParadoxKind =
  | 'causality_violation'
  | 'orphaned_effect'
  | 'causal_loop'
  | 'anchor_breach'
  | 'self_encounter';

export type ParadoxSeverity = 'critical' | 'warning';

export type TimelineStability = 'Stable' | 'Unstable' | 'Critical';

export const PARADOX_KINDS: readonly ParadoxKind[] = [
  'causal_loop',
  'causality_violation',
  'anchor_breach',
  'self_encounter',
  'orphaned_effect',
];

export const severityOf = (kind: ParadoxKind): ParadoxSeverity => (kind === 'orphaned_effect' ? 'warning' : 'critical');

export interface Paradox {
  kind: ParadoxKind;
  severity: ParadoxSeverity;
  /**
   * Graph indexes of the events involved, in the order the kind gives them meaning:
   * causality_violation [effect, cause]; orphaned_effect [effect, ...cancelled causes];
   * causal_loop the members, ascending; anchor_breach [changed event, its effect past the anchor];
   * self_encounter [earlier arrival, later arrival]. At most MAX_EVENTS_PER_PARADOX are listed.
   */
  eventIndexes: number[];
  /** How many events are involved in all (more than eventIndexes.length when that was capped). */
  eventCount: number;
  /** anchor_breach only: the anchor whose pinned state was altered. */
  anchorId?: string;
  /** A sentence in which `{0}`, `{1}`… stand for the events at those positions of eventIndexes. */
  description: string;
}

export interface ParadoxReport {
  /** The first `maxListed` paradoxes found, critical kinds first. */
  paradoxes: Paradox[];
  /** Every paradox found (inside the window, when one was given), listed or not. */
  paradoxCount: number;
  criticalCount: number;
  warningCount: number;
  countsByKind: Record<ParadoxKind, number>;
  /** True when paradoxCount > paradoxes.length. */
  truncated: boolean;
  stability: TimelineStability;
  status: string;
  eventsAnalysed: number;
  linksAnalysed: number;
  anchorsAnalysed: number;
}

export const MAX_EVENTS_PER_PARADOX = 1000;
export const DEFAULT_MAX_LISTED_PARADOXES = 1000;

export function stabilityFromCounts(criticalCount: number, warningCount: number): TimelineStability {
  if (criticalCount > 0) return 'Critical';
  return warningCount > 0 ? 'Unstable' : 'Stable';
}

export function statusSentence(paradoxCount: number): string {
  if (paradoxCount === 0) return 'No paradoxes detected';
  return paradoxCount === 1 ? '1 paradox detected' : `${paradoxCount} paradoxes detected`;
}

/** Fills a paradox's `{k}` placeholders with the ids of its events (the ids never leave the request thread). */
export function describeParadox(paradox: Pick<Paradox, 'description' | 'eventIndexes'>, eventIds: readonly string[]): string {
  return paradox.description.replace(/\{(\d+)\}/g, (placeholder, position: string) => {
    const index = paradox.eventIndexes[Number(position)];
    const id = index === undefined ? undefined : eventIds[index];
    return id === undefined ? placeholder : JSON.stringify(id);
  });
}

/** "{1}", "{1} and {2}", "{1}, {2} and {3}": placeholders for positions first..first+count-1. */
export function placeholderList(first: number, count: number): string {
  const items = Array.from({ length: count }, (_, k) => `{${first + k}}`);
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
