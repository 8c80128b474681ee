import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Bearer secrets look like `tms_key_<16 hex>_<43 base64url>` (API keys) or `tms_ses_<16 hex>_<43 base64url>`
 * (login sessions). The credential id inside lets authentication find the record with one Map lookup; the
 * 32 random bytes are the secret. Only the SHA-256 of the whole token is ever stored.
 */
export type CredentialKind = 'key' | 'session';

const PREFIX: Record<CredentialKind, string> = { key: 'key_', session: 'ses_' };
const ID_HEX_LENGTH = 16;
const SECRET_BYTES = 32;
const SECRET_LENGTH = 43; // base64url of 32 bytes, unpadded
const TOKEN_PATTERN = /^tms_((?:key|ses)_[0-9a-f]{16})_[A-Za-z0-9_-]{43}$/;

export function newCredentialId(kind: CredentialKind): string {
  return PREFIX[kind] + randomBytes(ID_HEX_LENGTH / 2).toString('hex');
}

export function newToken(credentialId: string): string {
  return `tms_${credentialId}_${randomBytes(SECRET_BYTES).toString('base64url')}`;
}

/** The credential id embedded in a well-formed token, or undefined. */
export function credentialIdOf(token: string): string | undefined {
  if (token.length !== 4 + 4 + ID_HEX_LENGTH + 1 + SECRET_LENGTH) return undefined;
  return TOKEN_PATTERN.exec(token)?.[1];
}

/**
 * Operators may choose their own admin key (TMS_ADMIN_KEY) in any format; such a key is filed under an id
 * derived from its hash, so that lookup stays a hash plus a Map lookup.
 */
export function derivedKeyId(tokenHash: Uint8Array): string {
  return PREFIX.key + Buffer.from(tokenHash.buffer, tokenHash.byteOffset, ID_HEX_LENGTH / 2).toString('hex');
}

/** One-shot hashing: no Hash object per request for the garbage collector to finalise. */
export function hashToken(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

/** Both sides are SHA-256 digests (same length), so the comparison time does not depend on the secret. */
export function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A random password for generated accounts: 18 bytes (144 bits) as 24 base64url characters. */
export function newPassword(): string {
  return randomBytes(18).toString('base64url');
}
