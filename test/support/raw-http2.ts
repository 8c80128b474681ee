import { connect, type Socket } from 'node:net';

/** Frames written and read by hand, for what Node's HTTP/2 client does not do: reset a stream at a chosen moment. */
export const FRAME = { data: 0, headers: 1, rstStream: 3, settings: 4 } as const;
export const FLAG = { endStream: 0x1, endHeaders: 0x4 } as const;
export const CANCEL = 8;

const PREFACE = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n';
const SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
const FRAME_HEAD = 9;

export function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(FRAME_HEAD);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId, 5);
  return Buffer.concat([head, payload]);
}

/** An HPACK block of literal fields, neither indexed nor Huffman-coded (names and values under 127 bytes). */
export function literalHeaders(headers: Record<string, string>): Buffer {
  const parts = Object.entries(headers).flatMap(([name, value]) => [Buffer.from([0, name.length]), Buffer.from(name), Buffer.from([value.length]), Buffer.from(value)]);
  return Buffer.concat(parts);
}

export const rstStream = (streamId: number, code: number): Buffer => frame(FRAME.rstStream, 0, streamId, Buffer.from([0, 0, 0, code]));

export interface RawHttp2 {
  socket: Socket;
  /** Resolves when the server has sent a frame of this type on this stream. */
  frameFrom(type: number, streamId: number): Promise<void>;
}

/**
 * A cleartext HTTP/2 connection, its preface sent. With `streamWindow: 0` the server may send headers but no data on
 * any stream: an answer stays unsent until the stream is reset.
 */
export async function rawHttp2(port: number, { streamWindow }: { streamWindow?: number } = {}): Promise<RawHttp2> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  const settings = Buffer.alloc(streamWindow === undefined ? 0 : 6);
  if (streamWindow !== undefined) {
    settings.writeUInt16BE(SETTINGS_INITIAL_WINDOW_SIZE, 0);
    settings.writeUInt32BE(streamWindow, 2);
  }
  socket.write(Buffer.concat([Buffer.from(PREFACE), frame(FRAME.settings, 0, 0, settings)]));

  const seen: string[] = [];
  const waiting: { key: string; resolve: () => void }[] = [];
  let unread = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    unread = Buffer.concat([unread, chunk]);
    while (unread.length >= FRAME_HEAD && unread.length >= FRAME_HEAD + unread.readUIntBE(0, 3)) {
      const key = `${unread[3]}:${unread.readUInt32BE(5) & 0x7fffffff}`;
      seen.push(key);
      for (const waiter of waiting.filter((w) => w.key === key)) waiter.resolve();
      unread = unread.subarray(FRAME_HEAD + unread.readUIntBE(0, 3));
    }
  });
  return {
    socket,
    frameFrom: (type, streamId) => {
      const key = `${type}:${streamId}`;
      return seen.includes(key) ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ key, resolve }));
    },
  };
}
