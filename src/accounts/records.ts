import type { Scope } from './principal.ts';

/** Stored under `u:<username>`. */
export interface AccountRecord {
  username: string;
  /** `$scrypt$ln=..,r=..,p=..$<salt>$<hash>`: see password-hash.ts. */
  password_hash: string;
  scopes: Scope[];
  created_at: string;
  created_by: string;
}

/** Stored under `k:<key_id>`. The secret itself is never stored; only its SHA-256. */
export interface KeyRecord {
  key_id: string;
  name: string;
  account: string;
  scopes: Scope[];
  created_at: string;
  created_by: string;
  expires_at: string | null;
  last_used_at: string | null;
  last_used_from: string | null;
  revoked: boolean;
  revoked_at: string | null;
  /** hex SHA-256 of the whole token. */
  token_sha256: string;
}

/** Stored under `s:<session_id>`: a login session whose bearer token is hashed like a key. */
export interface SessionRecord {
  session_id: string;
  account: string;
  created_at: string;
  expires_at: string;
  client: string;
  token_sha256: string;
}

/** What listings return: everything but the hash. */
export type AccountView = Omit<AccountRecord, 'password_hash'>;
export type KeyView = Omit<KeyRecord, 'token_sha256'>;

export function accountView({ password_hash: _hash, ...view }: AccountRecord): AccountView {
  return { ...view, scopes: [...view.scopes] };
}

export function keyView({ token_sha256: _hash, ...view }: KeyRecord): KeyView {
  return { ...view, scopes: [...view.scopes] };
}
