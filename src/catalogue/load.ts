import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { GenesisEvent, TimelineStore } from '../store/types.ts';
import { PRIMARY_TIMELINE_ID } from '../store/types.ts';
import { parseInstant } from '../time/index.ts';

const catalogueSchema = z.object({
  events: z.array(
    z.object({
      event_id: z.string().min(1),
      description: z.string().min(1),
      time: z.string(),
      location: z.string().min(1),
      causes: z.array(z.string()),
    }),
  ),
});

export type CatalogueEvent = GenesisEvent;

/**
 * Real, well-known events with their conventionally cited dates (before 1582 these are the dates historians
 * cite, i.e. Julian for the ancient world; a time of 12:00Z means the hour is not known).
 */
export function readCatalogue(): CatalogueEvent[] {
  const raw: unknown = JSON.parse(readFileSync(new URL('./historical-events.json', import.meta.url), 'utf8'));
  return catalogueSchema.parse(raw).events.map((event) => ({ ...event, time: parseInstant(event.time) }));
}

/** Loads the catalogue into `primary` on the first start only (while primary has never held an event). */
export async function loadCatalogueIfEmpty(store: TimelineStore): Promise<number> {
  const primary = await store.getTimeline(PRIMARY_TIMELINE_ID);
  if (!primary || primary.event_count > 0 || primary.revision > 0) return 0;
  return store.bulkLoad(PRIMARY_TIMELINE_ID, readCatalogue());
}
