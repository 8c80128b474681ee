/**
 * One batch of a bulk load's writes: each genesis event's version (LSN 0) and its entry in the level's time
 * index. An event loaded again (earlier in the batch, in an earlier batch, or by an earlier load) replaces its
 * version, and the batch that replaces it deletes its old time entry: the store's time index keeps one entry
 * per event, at the time it was last loaded with.
 */
import { encodeInstantKey, formatInstant, parseInstant, type Instant } from '../time/index.ts';
import { decodeRecord, encodeRecord } from './event-codec.ts';
import type { GenesisAccumulator } from './genesis-snapshot.ts';
import { encodeTimeEntry } from './genesis-time-entry.ts';
import { checkId } from './ids.ts';
import { sortKey, Tag, timeIndexPrefix, versionKey } from './keys.ts';
import { locationWords } from './location-words.ts';
import type { OrderedKeyValueStore, PutOp, WriteOp } from './ordered-kv.ts';
import type { EventRecord, GenesisEvent } from './types.ts';

export class GenesisLoadBatch {
  /** Two per event, its version's then its time entry's, in the order the accumulator first saw the events. */
  private puts: PutOp[] = [];
  /** The accumulator's position of the batch's first new event. */
  private first: number;
  /** Events of the batch that the store held before it → where their puts are. */
  private replacing = new Map<string, number>();
  private readonly timePrefix: Buffer;

  /** `accumulator`: the load's, to which `add` adds each event. */
  constructor(
    private readonly timelineId: string,
    private readonly level: number,
    private readonly accumulator: GenesisAccumulator,
  ) {
    this.timePrefix = timeIndexPrefix(level);
    this.first = accumulator.size;
  }

  add(event: GenesisEvent): void {
    const eventId = event.event_id;
    checkId('event id', eventId);
    const record: EventRecord = {
      event_id: eventId,
      timeline_id: this.timelineId,
      description: event.description,
      time: formatInstant(event.time),
      location: event.location,
      causes: event.causes,
      status: 'original',
    };
    const words = locationWords(event.location).join(' ');
    const version: PutOp = { type: 'put', key: versionKey(Tag.version, this.level, eventId, 0), value: encodeRecord(record) };
    const timeEntry: PutOp = { type: 'put', key: this.timeKey(event.time, eventId), value: encodeTimeEntry(words) };
    const at = this.putsOf(eventId);
    if (at === undefined) this.puts.push(version, timeEntry);
    else {
      this.puts[at] = version;
      this.puts[at + 1] = timeEntry;
    }
    this.accumulator.add(eventId, Number(event.time.seconds), event.time.nanos, words, event.causes);
  }

  /**
   * The batch's writes, with the deletion of every time entry it replaces (read from the store, which holds the
   * versions it replaces until the batch is written); the batch is empty afterwards.
   */
  async take(kv: OrderedKeyValueStore): Promise<{ puts: PutOp[]; dels: WriteOp[] }> {
    const { puts, replacing } = this;
    const dels: WriteOp[] = [];
    if (replacing.size > 0) {
      const replaced = [...replacing];
      const before = await kv.getMany(replaced.map(([eventId]) => versionKey(Tag.version, this.level, eventId, 0)));
      replaced.forEach(([eventId, at], i) => {
        const bytes = before[i];
        if (!bytes) return;
        const stale = this.timeKey(parseInstant(decodeRecord(bytes).time), eventId);
        if (!stale.equals(puts[at + 1]!.key)) dels.push({ type: 'del', key: stale });
      });
    }
    this.puts = [];
    this.replacing = new Map();
    this.first = this.accumulator.size;
    return { puts, dels };
  }

  /**
   * Where the puts of an event the batch already has are; undefined for an event new to the batch, whose puts
   * go at the end (noted for `take` when the store has it from before).
   */
  private putsOf(eventId: string): number | undefined {
    const known = this.accumulator.positionOf(eventId);
    if (known === undefined) return undefined;
    if (known >= this.first) return 2 * (known - this.first);
    const at = this.replacing.get(eventId);
    if (at === undefined) this.replacing.set(eventId, this.puts.length);
    return at;
  }

  private timeKey(time: Instant, eventId: string): Buffer {
    return Buffer.concat([this.timePrefix, sortKey(encodeInstantKey(time), eventId)]);
  }
}
