/**
 * The `tms backup` file. A plain first line, `TMS-BACKUP <format>\n`, says what the file is; a gzip stream
 * follows, holding frames of `[tag: 1 byte][length: u32 BE][payload]`:
 *
 *   H  header: JSON {format, created_at, source, entries}         (first, once)
 *   E  one timeline-store entry: [key length: u32 BE][key][value]  (key order, byte for byte)
 *   A  an account, K an API key, S a login session, R a saved console request: the record as JSON
 *   T  trailer: JSON {entries, accounts, keys, sessions, saved_requests, timelines, sha256}   (last, once)
 *
 * The trailer's `sha256` covers every frame before it, byte for byte; `timelines` holds, per timeline, the
 * number of its entries and a SHA-256 over them, which a restore compares with what it reads back from the
 * target. A reader checks all of it while it reads, so a truncated, damaged or foreign file is refused
 * before anything is written anywhere.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { AccountRecord, KeyRecord, SessionRecord } from '../accounts/records.ts';
import type { SavedRequestRecord } from '../saved-requests/records.ts';
import { Tag } from './keys.ts';

export const FORMAT = 1;
const MAGIC = 'TMS-BACKUP ';
/** The first line of a file in this format. */
export const FIRST_LINE = Buffer.from(`${MAGIC}${FORMAT}\n`, 'latin1');
/** No frame is bigger (genesis snapshot chunks, the biggest entries, are 4 MiB): a longer one is damage. */
const MAX_FRAME = 64 * 1024 * 1024;
const FRAME_HEAD = 5;

export const FrameTag = { header: 0x48, entry: 0x45, account: 0x41, key: 0x4b, session: 0x53, savedRequest: 0x52, trailer: 0x54 } as const;

export interface BackupHeader {
  format: number;
  created_at: string;
  /** `leveldb` or `postgresql`: what the snapshot was read from (a backup restores into either). */
  source: string;
  /** How many `E` frames follow (for progress). */
  entries: number;
}

export interface TimelineTally {
  timeline_id: string;
  level: number;
  /** The timeline's record and every entry under its level (versions, indexes, snapshots, anchors). */
  entries: number;
  sha256: string;
}

export interface BackupCounts {
  entries: number;
  accounts: number;
  keys: number;
  sessions: number;
  saved_requests: number;
}

export interface BackupTrailer extends BackupCounts {
  timelines: TimelineTally[];
  sha256: string;
}

/** Why a file cannot be restored: `foreign` (not a tms backup), `newer` (a later format), `damaged`. */
export class BackupFileError extends Error {
  override name = 'BackupFileError';
  constructor(
    readonly kind: 'foreign' | 'newer' | 'damaged' | 'missing',
    message: string,
  ) {
    super(message);
  }
}

/** Tags whose keys carry a 4-byte level right after the tag: everything one timeline owns. */
const LEVEL_TAGS = new Set<number>([Tag.tombstone, Tag.version, Tag.summary, Tag.timeIndex, Tag.wordIndex, Tag.snapshot, Tag.anchor]);

/** Entries per timeline, counted and hashed in key order: the same on the writing and the reading side. */
export class TimelineTallies {
  private readonly levels = new Map<number, { entries: number; hash: Hash; timelineId?: string }>();

  /** One entry, given as its whole `E` frame (`entryFrame`): one hash update per entry. */
  addFrame(key: Uint8Array, value: Uint8Array, frame: Uint8Array): void {
    let level: number;
    let timelineId: string | undefined;
    if (key[0] === Tag.timeline) {
      const record = JSON.parse(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8')) as { timeline_id: string; level: number };
      level = record.level;
      timelineId = record.timeline_id;
    } else if (LEVEL_TAGS.has(key[0]!) && key.length >= 5) {
      level = (key[1]! * 0x1000000) + ((key[2]! << 16) | (key[3]! << 8) | key[4]!);
    } else {
      return;
    }
    let tally = this.levels.get(level);
    if (!tally) this.levels.set(level, (tally = { entries: 0, hash: createHash('sha256') }));
    if (timelineId !== undefined) tally.timelineId = timelineId;
    tally.entries++;
    tally.hash.update(frame);
  }

  /** One entry read from a store: framed as a backup frames it, then counted. */
  add(key: Uint8Array, value: Uint8Array): void {
    const frame = Buffer.allocUnsafe(FRAME_HEAD + 4 + key.length + value.length);
    writeEntryFrame(frame, 0, key, value);
    this.addFrame(key, value, frame);
  }

  /** One line per timeline, by id (levels of deleted timelines still being cleared have no record: left out). */
  result(): TimelineTally[] {
    const out: TimelineTally[] = [];
    for (const [level, tally] of this.levels) {
      if (tally.timelineId !== undefined) out.push({ timeline_id: tally.timelineId, level, entries: tally.entries, sha256: tally.hash.digest('hex') });
    }
    return out.sort((a, b) => (a.timeline_id < b.timeline_id ? -1 : a.timeline_id > b.timeline_id ? 1 : 0));
  }
}

/** Writes the `E` frame of one entry at `at`; returns its length. */
function writeEntryFrame(out: Buffer, at: number, key: Uint8Array, value: Uint8Array): number {
  const length = FRAME_HEAD + 4 + key.length + value.length;
  out[at] = FrameTag.entry;
  out.writeUInt32BE(4 + key.length + value.length, at + 1);
  out.writeUInt32BE(key.length, at + FRAME_HEAD);
  out.set(key, at + FRAME_HEAD + 4);
  out.set(value, at + FRAME_HEAD + 4 + key.length);
  return length;
}

function frame(tag: number, payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEAD + payload.length);
  out[0] = tag;
  out.writeUInt32BE(payload.length, 1);
  payload.copy(out, FRAME_HEAD);
  return out;
}

/** Makes the frames of one backup and keeps the counts and hashes its trailer needs. */
export class BackupEncoder {
  private readonly hash = createHash('sha256');
  private readonly tallies = new TimelineTallies();
  readonly counts: BackupCounts = { entries: 0, accounts: 0, keys: 0, sessions: 0, saved_requests: 0 };

  private hashed(bytes: Buffer): Buffer {
    this.hash.update(bytes);
    return bytes;
  }

  header(header: BackupHeader): Buffer {
    return this.hashed(frame(FrameTag.header, Buffer.from(JSON.stringify(header))));
  }

  /** A chunk of entries as one buffer of `E` frames. */
  entries(entries: readonly [Uint8Array, Uint8Array][]): Buffer {
    let size = 0;
    for (const [key, value] of entries) size += FRAME_HEAD + 4 + key.length + value.length;
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    for (const [key, value] of entries) {
      const length = writeEntryFrame(out, at, key, value);
      this.tallies.addFrame(key, value, out.subarray(at, at + length));
      at += length;
    }
    this.counts.entries += entries.length;
    return this.hashed(out);
  }

  account(record: AccountRecord): Buffer {
    this.counts.accounts++;
    return this.hashed(frame(FrameTag.account, Buffer.from(JSON.stringify(record))));
  }

  key(record: KeyRecord): Buffer {
    this.counts.keys++;
    return this.hashed(frame(FrameTag.key, Buffer.from(JSON.stringify(record))));
  }

  session(record: SessionRecord): Buffer {
    this.counts.sessions++;
    return this.hashed(frame(FrameTag.session, Buffer.from(JSON.stringify(record))));
  }

  savedRequest(record: SavedRequestRecord): Buffer {
    this.counts.saved_requests++;
    return this.hashed(frame(FrameTag.savedRequest, Buffer.from(JSON.stringify(record))));
  }

  /** The last frame; nothing may be added after it. */
  trailer(): { bytes: Buffer; trailer: BackupTrailer } {
    const trailer: BackupTrailer = { ...this.counts, timelines: this.tallies.result(), sha256: this.hash.digest('hex') };
    return { bytes: frame(FrameTag.trailer, Buffer.from(JSON.stringify(trailer))), trailer };
  }
}

/** What a reader hands on, a decompressed chunk at a time; consecutive entries come as one item. */
export type BackupItem =
  | { kind: 'header'; header: BackupHeader }
  | { kind: 'entries'; entries: [Uint8Array, Uint8Array][] }
  | { kind: 'account'; record: AccountRecord }
  | { kind: 'key'; record: KeyRecord }
  | { kind: 'session'; record: SessionRecord }
  | { kind: 'savedRequest'; record: SavedRequestRecord }
  | { kind: 'trailer'; trailer: BackupTrailer };

const damaged = (label: string, why: string) => new BackupFileError('damaged', `${label} is damaged (${why})`);

/** Refuses a path that is not there or not a file, before any stream is opened on it. */
async function checkReadable(path: string): Promise<void> {
  try {
    if ((await stat(path)).isDirectory()) throw new BackupFileError('missing', `${path} is a folder, not a backup file`);
  } catch (error) {
    if (error instanceof BackupFileError) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT') throw new BackupFileError('missing', `the backup file ${path} does not exist`);
    throw new BackupFileError('missing', `cannot read the backup file ${path} (${(error as Error).message})`);
  }
}

/**
 * Checks the first line (a tms backup, in a format this build reads) and returns the rest of the bytes.
 * `subject` names the source in messages.
 */
async function afterFirstLine(input: AsyncIterable<Buffer>, subject: string): Promise<Readable> {
  const bytes = input[Symbol.asyncIterator]();
  let head: Buffer = Buffer.alloc(0);
  let ended = false;
  while (head.length < 32 && !ended) {
    const next = await bytes.next();
    if (next.done) ended = true;
    else head = head.length === 0 ? next.value : Buffer.concat([head, next.value]);
  }
  const line = /^TMS-BACKUP (\d{1,6})\n/.exec(head.subarray(0, 32).toString('latin1'));
  if (!line) {
    if (head.length === 0) throw new BackupFileError('foreign', `${subject} is empty, not a tms backup`);
    throw new BackupFileError('foreign', `${subject} is not a tms backup (it does not begin with "${MAGIC.trim()}")`);
  }
  if (Number(line[1]) > FORMAT) {
    throw new BackupFileError('newer', `${subject} is a tms backup in format ${line[1]}, newer than this build's ${FORMAT}`);
  }
  const rest = head.subarray(line[0].length);
  return Readable.from(
    (async function* () {
      if (rest.length > 0) yield rest;
      for (let next = await bytes.next(); !next.done; next = await bytes.next()) yield next.value;
    })(),
  );
}

/**
 * Reads and checks a backup file, a decompressed chunk at a time. Every frame is checked as it comes; the
 * trailer's hash, counts and per-timeline tallies when it comes; a stream that ends early, goes on after
 * the trailer, or fails to decompress throws `BackupFileError` (kind `damaged`), naming what was wrong.
 */
export async function* readBackup(path: string): AsyncGenerator<BackupItem[]> {
  await checkReadable(path);
  yield* readBackupFrom(createReadStream(path), `the backup file ${path}`, path);
}

/** The same, of bytes arriving from elsewhere (`tms backup --url` checks the stream it saves as it saves it). */
export async function* readBackupFrom(input: Readable, label: string, subject = label): AsyncGenerator<BackupItem[]> {
  const hash = createHash('sha256');
  const tallies = new TimelineTallies();
  const counts: BackupCounts = { entries: 0, accounts: 0, keys: 0, sessions: 0, saved_requests: 0 };
  let header: BackupHeader | undefined;
  let trailer: BackupTrailer | undefined;
  let pending: Buffer[] = [];
  let pendingLength = 0;
  let wanted = FRAME_HEAD;
  let gunzip: Readable | undefined;
  const json = <T>(payload: Buffer, what: string): T => {
    try {
      return JSON.parse(payload.toString('utf8')) as T;
    } catch {
      throw damaged(label, `a ${what} record is not JSON`);
    }
  };
  try {
    const body = await afterFirstLine(input, subject);
    gunzip = pipeline(body, createGunzip(), () => undefined);
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      pending.push(chunk);
      pendingLength += chunk.length;
      if (pendingLength < wanted) continue;
      const bytes = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingLength);
      const items: BackupItem[] = [];
      let entries: [Uint8Array, Uint8Array][] | undefined;
      let at = 0;
      for (;;) {
        if (bytes.length - at < FRAME_HEAD) {
          wanted = FRAME_HEAD;
          break;
        }
        const length = bytes.readUInt32BE(at + 1);
        if (length > MAX_FRAME) throw damaged(label, `a record claims ${length} bytes`);
        if (bytes.length - at < FRAME_HEAD + length) {
          wanted = FRAME_HEAD + length;
          break;
        }
        if (trailer) throw damaged(label, 'data after the trailer');
        const tag = bytes[at]!;
        const whole = bytes.subarray(at, at + FRAME_HEAD + length);
        const payload = whole.subarray(FRAME_HEAD);
        at += FRAME_HEAD + length;
        if (tag !== FrameTag.trailer) hash.update(whole);
        if (!header && tag !== FrameTag.header) throw damaged(label, 'no header');
        if (tag !== FrameTag.entry) entries = undefined;
        switch (tag) {
          case FrameTag.header:
            if (header) throw damaged(label, 'a second header');
            header = json<BackupHeader>(payload, 'header');
            if (header.format !== FORMAT) throw damaged(label, `header says format ${header.format}`);
            items.push({ kind: 'header', header });
            break;
          case FrameTag.entry: {
            const keyLength = length >= 4 ? payload.readUInt32BE(0) : Infinity;
            if (keyLength > length - 4) throw damaged(label, 'an entry longer than its record');
            const entry: [Uint8Array, Uint8Array] = [payload.subarray(4, 4 + keyLength), payload.subarray(4 + keyLength)];
            tallies.addFrame(entry[0], entry[1], whole);
            counts.entries++;
            if (!entries) items.push({ kind: 'entries', entries: (entries = []) });
            entries.push(entry);
            break;
          }
          case FrameTag.account:
            counts.accounts++;
            items.push({ kind: 'account', record: json<AccountRecord>(payload, 'account') });
            break;
          case FrameTag.key:
            counts.keys++;
            items.push({ kind: 'key', record: json<KeyRecord>(payload, 'key') });
            break;
          case FrameTag.session:
            counts.sessions++;
            items.push({ kind: 'session', record: json<SessionRecord>(payload, 'session') });
            break;
          case FrameTag.savedRequest:
            counts.saved_requests++;
            items.push({ kind: 'savedRequest', record: json<SavedRequestRecord>(payload, 'saved request') });
            break;
          case FrameTag.trailer: {
            trailer = json<BackupTrailer>(payload, 'trailer');
            const sha256 = hash.digest('hex');
            if (trailer.sha256 !== sha256) throw damaged(label, 'its SHA-256 does not match its contents');
            const mismatch = (Object.keys(counts) as (keyof BackupCounts)[]).find((name) => counts[name] !== trailer![name]);
            if (mismatch) throw damaged(label, `it holds ${counts[mismatch]} ${mismatch.replace('_', ' ')}, its trailer says ${trailer[mismatch]}`);
            if (JSON.stringify(tallies.result()) !== JSON.stringify(trailer.timelines)) throw damaged(label, 'its per-timeline checksums do not match');
            // Counted and read in the same snapshot: a difference means the snapshot did not hold still.
            if (header!.entries !== counts.entries) throw damaged(label, `its header announced ${header!.entries} entries, it holds ${counts.entries}`);
            items.push({ kind: 'trailer', trailer });
            break;
          }
          default:
            throw damaged(label, `unknown record type 0x${tag.toString(16)}`);
        }
      }
      const rest = bytes.subarray(at);
      pending = rest.length > 0 ? [rest] : [];
      pendingLength = rest.length;
      if (items.length > 0) yield items;
    }
  } catch (error) {
    if (error instanceof BackupFileError) throw error;
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('Z_') || /unexpected end of file|incorrect header check|invalid/i.test((error as Error).message)) {
      throw damaged(label, (error as Error).message === 'unexpected end of file' ? 'it ends early: truncated?' : `compressed data: ${(error as Error).message}`);
    }
    throw error;
  } finally {
    gunzip?.destroy();
    input.destroy();
  }
  if (pendingLength > 0 || !trailer) throw damaged(label, trailer ? 'data after the trailer' : 'it ends before its trailer: truncated?');
}

/** Reads the whole file and checks it, writing nothing; returns its header and trailer. */
export async function verifyBackup(path: string, onEntries: (done: number, total: number) => void = () => undefined): Promise<{ header: BackupHeader; trailer: BackupTrailer }> {
  let header: BackupHeader | undefined;
  let trailer: BackupTrailer | undefined;
  let done = 0;
  for await (const items of readBackup(path)) {
    for (const item of items) {
      if (item.kind === 'header') header = item.header;
      else if (item.kind === 'trailer') trailer = item.trailer;
      else if (item.kind === 'entries') done += item.entries.length;
    }
    onEntries(done, header?.entries ?? done);
  }
  return { header: header!, trailer: trailer! };
}
