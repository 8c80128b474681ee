/**
 * One batch of a bulk load's writes: each genesis event's version (LSN 0) and its entry in the level's time
 * index. An event loaded again (earlier in the batch, in an earlier batch, or by an earlier load) replaces its
 * version, and the batch that replaces it deletes its old time entry: the store's time index keeps one entry
 * per event, at the time it was last loaded with.
 */
import { instantPoint, pointInstant } from '../analysis/instants.ts';
import { encodeInstantKey, formatInstant, type Instant } from '../time/index.ts';
import { encodeRecord } from './event-codec.ts';
import type { GenesisAccumulator } from './genesis-snapshot.ts';
import { encodeTimeEntry } from './genesis-time-entry.ts';
import { checkId } from './ids.ts';
import { sortKey, Tag, timeIndexPrefix, versionKey } from './keys.ts';
import { locationWords } from './location-words.ts';
import type { PutOp, WriteOp } from './ordered-kv.ts';
import type { EventRecord, GenesisEvent } from './types.ts';

export class GenesisLoadBatch {
  /** Two per event of the batch, its version's then its time entry's. */
  private puts: PutOp[] = [];
  /** Event id → where its puts are in `puts`. */
  private readonly positions = new Map<string, number>();
  /** Event id → its time entry as the store held it before the batch. */
  private stale = new Map<string, Buffer>();
  private readonly timePrefix: Buffer;

  /** `accumulator`: the load's, to which `add` adds each event; it holds the time each event was last loaded with. */
  constructor(
    private readonly timelineId: string,
    private readonly level: number,
    private readonly accumulator: GenesisAccumulator,
  ) {
    this.timePrefix = timeIndexPrefix(level);
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
    const at = this.positions.get(eventId);
    if (at !== undefined) {
      this.puts[at] = version;
      this.puts[at + 1] = timeEntry;
    } else {
      this.noteStale(eventId);
      this.positions.set(eventId, this.puts.length);
      this.puts.push(version, timeEntry);
    }
    const point = instantPoint(event.time.seconds, event.time.nanos);
    this.accumulator.add(eventId, point.seconds, point.nanos, words, event.causes);
  }

  /**
   * The batch's writes, with the deletion of every time entry it replaces (an entry it writes again is kept); the
   * batch is empty afterwards.
   */
  take(): { puts: PutOp[]; dels: WriteOp[] } {
    const { puts, positions, stale } = this;
    const dels: WriteOp[] = [];
    for (const [eventId, key] of stale) if (!key.equals(puts[positions.get(eventId)! + 1]!.key)) dels.push({ type: 'del', key });
    this.puts = [];
    positions.clear();
    this.stale = new Map();
    return { puts, dels };
  }

  /** An event new to the batch that the store already holds: its time entry there is to go. */
  private noteStale(eventId: string): void {
    const before = this.accumulator.timeOf(eventId);
    if (before !== undefined) this.stale.set(eventId, this.timeKey({ ...pointInstant(before), fractionDigits: 0 }, eventId));
  }

  private timeKey(time: Instant, eventId: string): Buffer {
    return Buffer.concat([this.timePrefix, sortKey(encodeInstantKey(time), eventId)]);
  }
}
