/** What a credential may do. Each scope includes the ones below it: admin ⊃ write ⊃ read. */
export type Scope = 'read' | 'write' | 'admin';

export const SCOPES: readonly Scope[] = ['read', 'write', 'admin'];

const RANK: Record<Scope, number> = { read: 1, write: 2, admin: 3 };

/** Who is calling, as established by `AccessControl.authenticate`. */
export interface Principal {
  account: string;
  scopes: ReadonlySet<Scope>;
  /** key_id or session id: safe to log, never the secret. */
  credentialId: string;
  /** `operator` is the offline command-line tool, which acts with full rights on the store. */
  kind: 'key' | 'session' | 'operator';
}

export function isScope(value: string): value is Scope {
  return Object.prototype.hasOwnProperty.call(RANK, value);
}

/** The highest rank among the scopes held (0 for none). */
export function scopeRank(scopes: ReadonlySet<Scope> | readonly Scope[]): number {
  let rank = 0;
  for (const scope of scopes) rank = Math.max(rank, RANK[scope]);
  return rank;
}

export function hasScope(principal: Pick<Principal, 'scopes'>, scope: Scope): boolean {
  return scopeRank(principal.scopes) >= RANK[scope];
}

/** Scopes in canonical order (read, write, admin), for messages and listings. */
export function sortScopes(scopes: Iterable<Scope>): Scope[] {
  return [...new Set(scopes)].sort((a, b) => RANK[a] - RANK[b]);
}

/** The principal of the offline `tms users` / `tms keys` commands: an operator with the store in hand. */
export const OPERATOR: Principal = Object.freeze({
  account: '(operator)',
  scopes: new Set<Scope>(['read', 'write', 'admin']),
  credentialId: 'cli',
  kind: 'operator',
});
