import type { KeyRecord, SessionRecord } from '../accounts/records.ts';

/**
 * Keys and sessions of accounts that are not there. A store of an older version could keep them after their
 * account was removed (nothing could sign in with them); a store now refuses them, so copies and restores leave
 * them out and say how many.
 */
export interface Skipped {
  keys: number;
  sessions: number;
}

export const NONE_SKIPPED: Skipped = Object.freeze({ keys: 0, sessions: 0 });

/** The keys and sessions whose account is among `accounts`, and how many were not. */
export function withoutStrays(
  accounts: ReadonlySet<string>,
  keys: readonly KeyRecord[],
  sessions: readonly SessionRecord[],
): { keys: KeyRecord[]; sessions: SessionRecord[]; skipped: Skipped } {
  const heldKeys = keys.filter((key) => accounts.has(key.account));
  const heldSessions = sessions.filter((session) => accounts.has(session.account));
  return { keys: heldKeys, sessions: heldSessions, skipped: { keys: keys.length - heldKeys.length, sessions: sessions.length - heldSessions.length } };
}

/** The end of a command's line when something was left out: `; left out 1 keys and 0 sessions whose …`. */
export function leftOut(skipped: Skipped, where: string): string {
  return skipped.keys + skipped.sessions === 0 ? '' : `; left out ${skipped.keys} keys and ${skipped.sessions} sessions whose accounts are not in ${where}`;
}
