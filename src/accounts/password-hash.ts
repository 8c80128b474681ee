import { randomBytes, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { Piscina } from 'piscina';
import { ApiError } from '../domain/errors.ts';

/** scrypt cost: N = 2^log2N, block size r, parallelism p. */
export interface ScryptCost {
  log2N: number;
  r: number;
  p: number;
}

/**
 * 32 MiB per hash, three passes: one of the OWASP-recommended scrypt settings (equivalent to N=2^17,r=8,p=1
 * in work, at a quarter of the memory). Measured ~0.6 s per hash on the 2-core dev machines; tests lower it.
 */
export const DEFAULT_SCRYPT_COST: ScryptCost = { log2N: 15, r: 8, p: 3 };

const SALT_BYTES = 16;
const HASH_BYTES = 32;
const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

/**
 * One derivation at a time, in a thread of its own at a lower CPU priority (password-worker.mjs). On the libuv
 * threadpool, concurrent logins each took a thread (LevelDB's reads and writes wait for the same four) and a core,
 * and 32 MiB each: in the soak, about 2 logins a second used 1.6 of the machine's 2 cores and moved RSS by up to
 * 128 MiB from one second to the next (docs/performance.md). The thread leaves after 30 s without work.
 */
const hasher = new Piscina<{ password: string; salt: Buffer; length: number; options: ScryptOptions }, Uint8Array>({
  filename: new URL('./password-worker.mjs', import.meta.url).href,
  minThreads: 0,
  maxThreads: 1,
  idleTimeout: 30_000,
});

/**
 * Derivations waiting for the thread beyond this many are refused at once: at ~0.6 s each the last one waits
 * about 6 s, well within a request's time limit (unbounded, a burst of logins queued until their deadlines).
 * As many as one account may have in flight before its lockout, so a burst on one account meets its lock first.
 */
export const HASH_QUEUE_LIMIT = 10;
/** Assumed for the retry hint until the thread has timed a derivation. */
const TYPICAL_DERIVATION_MS = 600;

/** Too many derivations already waiting; `retryAfterSeconds` is when the queue should have room again. */
export class PasswordHashingBusyError extends ApiError {
  constructor(readonly retryAfterSeconds: number) {
    super('resource_exhausted', `too many passwords are being checked right now; retry after ${retryAfterSeconds} s`, [
      { type: 'tms.v1.RetryInfo', debug: { retry_after_seconds: retryAfterSeconds } },
    ]);
  }
}

async function derive(password: string, salt: Buffer, length: number, cost: ScryptCost): Promise<Buffer> {
  if (hasher.queueSize >= HASH_QUEUE_LIMIT) {
    const eachMs = hasher.histogram.runTime?.mean || TYPICAL_DERIVATION_MS;
    throw new PasswordHashingBusyError(Math.max(1, Math.ceil(((hasher.queueSize + 1) * eachMs) / 1000)));
  }
  const N = 2 ** cost.log2N;
  // scrypt needs 128·N·r bytes; Node refuses anything over maxmem (default 32 MiB), so give it room.
  const maxmem = 128 * N * cost.r * 2 + 1024 * 1024;
  const key = await hasher.run({ password: password.normalize('NFC'), salt, length, options: { N, r: cost.r, p: cost.p, maxmem } });
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength);
}

/** A self-describing hash: `$scrypt$ln=15,r=8,p=3$<salt>$<hash>` (base64url), so costs can rise later. */
export async function hashPassword(password: string, cost: ScryptCost = DEFAULT_SCRYPT_COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, HASH_BYTES, cost);
  return `$scrypt$ln=${cost.log2N},r=${cost.r},p=${cost.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const match = FORMAT.exec(encoded);
  if (!match) throw new Error('stored password hash has an unknown format');
  const [, ln, r, p, salt, expected] = match;
  const expectedBytes = Buffer.from(expected!, 'base64url');
  const cost = { log2N: Number(ln), r: Number(r), p: Number(p) };
  const actual = await derive(password, Buffer.from(salt!, 'base64url'), expectedBytes.length, cost);
  return timingSafeEqual(actual, expectedBytes);
}
