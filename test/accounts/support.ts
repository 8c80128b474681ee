// Shared by the accounts tests: a real LevelDB in a temp folder, a clock the test moves, cheap scrypt.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccessControl } from '../../src/accounts/access.ts';
import { openStorage, type Storage } from '../../src/store/storage.ts';
import type { AccessOptions } from '../../src/accounts/access.ts';
import { OPERATOR } from '../../src/accounts/principal.ts';
import type { Principal, Scope } from '../../src/accounts/principal.ts';
import { ApiError } from '../../src/domain/errors.ts';
import { CHEAP_SCRYPT } from '../support/accounts.ts';

export { CHEAP_SCRYPT, secretsInFiles } from '../support/accounts.ts';

export class Clock {
  constructor(public ms = Date.parse('2030-01-01T00:00:00Z')) {}
  readonly now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface Harness {
  dir: string;
  storage: Storage;
  access: AccessControl;
  clock: Clock;
  /** Closes and opens the same folder again (what a restart sees). */
  reopen(options?: AccessOptions): Promise<void>;
  close(): Promise<void>;
  remove(): Promise<void>;
}

export async function openHarness(options: AccessOptions = {}): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'tms-accounts-'));
  const clock = new Clock();
  const open = async (extra: AccessOptions) => {
    const storage = await openStorage({ dataDir: dir });
    const access = await AccessControl.open(storage.accounts, { now: clock.now, scrypt: CHEAP_SCRYPT, ...options, ...extra });
    return { storage, access };
  };
  const harness: Harness = {
    dir,
    clock,
    ...(await open({})),
    async reopen(extra = {}) {
      await harness.close();
      Object.assign(harness, await open(extra));
    },
    async close() {
      await harness.access.close();
      await harness.storage.close();
    },
    async remove() {
      await rm(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** An account with a password, and a principal for it holding the given scopes (as a session would). */
export async function makeAccount(access: AccessControl, username: string, scopes: Scope[], password = `pw-${username}-secret`) {
  await access.createAccount(OPERATOR, { username, password, scopes });
  const login = await access.login(username, password, '127.0.0.1');
  const principal = access.authenticate(`Bearer ${login.token}`, '127.0.0.1');
  return { username, password, token: login.token, principal };
}

export function principalOf(account: string, scopes: Scope[]): Principal {
  return { account, scopes: new Set(scopes), credentialId: 'test', kind: 'key' };
}

/** Runs `work`, which must fail with an ApiError; returns it. */
export async function apiError(work: () => unknown): Promise<ApiError> {
  try {
    await work();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError, but the call succeeded');
}
