import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { GenesisEvent } from '../store/types.ts';
import { compareInstants, parseInstant } from '../time/index.ts';

/**
 * One historical event as shipped in `historical-events.json`. Times are proleptic Gregorian UTC instants
 * (ISO 8601, astronomical years: 44 BC is -000043); an event dated in the Julian calendar by historians
 * carries that date in its description. 12:00:00Z stands for "that day, hour unknown".
 */
export type CatalogueEvent = GenesisEvent;

const eventIdPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const catalogueFileSchema = z.strictObject({
  events: z.array(
    z.strictObject({
      event_id: z.string().regex(eventIdPattern, 'must be a lowercase slug like "fall-of-constantinople"'),
      description: z.string().trim().min(1),
      time: z.string(),
      location: z.string().trim().min(1),
      causes: z.array(z.string()).max(3),
    }),
  ),
});

const catalogueUrl = new URL('./historical-events.json', import.meta.url);
let cached: readonly CatalogueEvent[] | undefined;

/**
 * The built-in catalogue, parsed and checked: a bad file fails loudly at start instead of loading half a
 * history. Every cause must name an event that comes earlier in the file and earlier in time.
 */
export function readCatalogue(): CatalogueEvent[] {
  cached ??= parseCatalogue(JSON.parse(readFileSync(catalogueUrl, 'utf8')));
  return cached.map((event) => ({ ...event, causes: [...event.causes] }));
}

export function parseCatalogue(raw: unknown): CatalogueEvent[] {
  const parsed = catalogueFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`historical catalogue: ${formatPath(issue.path)}: ${issue.message}`);
  }
  const seen = new Map<string, CatalogueEvent>();
  return parsed.data.events.map((entry, index) => {
    const field = `events[${index}]`;
    let time;
    try {
      time = parseInstant(entry.time);
    } catch (error) {
      throw new Error(`historical catalogue: ${field}.time: ${(error as Error).message}`);
    }
    if (seen.has(entry.event_id)) throw new Error(`historical catalogue: ${field}.event_id: duplicate id "${entry.event_id}"`);
    for (const cause of entry.causes) {
      const earlier = seen.get(cause);
      if (!earlier) throw new Error(`historical catalogue: ${field}.causes: "${cause}" is not an earlier event of the file`);
      if (compareInstants(earlier.time, time) >= 0) {
        throw new Error(`historical catalogue: ${field}.causes: "${cause}" does not happen before "${entry.event_id}"`);
      }
    }
    const event: CatalogueEvent = { ...entry, time };
    seen.set(event.event_id, event);
    return event;
  });
}

function formatPath(path: PropertyKey[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`)).join('') || '(root)';
}
