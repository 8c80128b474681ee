import type { TimelineStore } from '../store/types.ts';
import { PRIMARY_TIMELINE_ID } from '../domain/timelines.ts';
import { readCatalogue } from './read-catalogue.ts';

export { readCatalogue, parseCatalogue } from './read-catalogue.ts';
export type { CatalogueEvent } from './read-catalogue.ts';

/**
 * Loads the historical catalogue into `primary` on the first start only, and returns how many events it
 * loaded (0 when it did nothing). "First start" means primary has never held an event nor recorded a change,
 * so a store filled by `tms generate`, or one whose primary users have already written to, is left alone.
 * The whole catalogue goes in one batch: an interrupted load leaves no partial history behind.
 */
export async function loadCatalogueIfEmpty(store: TimelineStore): Promise<number> {
  const primary = await store.getTimeline(PRIMARY_TIMELINE_ID);
  if (!primary) throw new Error('timeline "primary" is missing: open the store before loading the catalogue');
  if (primary.event_count > 0 || primary.revision > 0) return 0;
  const events = readCatalogue();
  // ifEmpty: another node sharing the store may be loading it at this very moment.
  return store.bulkLoad(PRIMARY_TIMELINE_ID, events, { batchSize: events.length + 1, ifEmpty: true });
}
