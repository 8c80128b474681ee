// Accounts for API tests: seeded offline with a cheap scrypt cost (the server's own cost is ~0.6 s a hash),
// then keys, sessions and everything else made through the running server's API.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOffline } from '../../src/accounts/offline.ts';
import { OPERATOR } from '../../src/accounts/principal.ts';
import type { Scope } from '../../src/accounts/principal.ts';
import type { ScryptCost } from '../../src/accounts/password-hash.ts';
import type { Config } from '../../src/config.ts';
import { ADMIN_KEY, call, startTestServer, type HttpResult, type TestServer } from './server.ts';

/** Real scrypt at a low cost, for accounts seeded before the server starts. */
export const CHEAP_SCRYPT: ScryptCost = { log2N: 10, r: 8, p: 1 };

export interface SeedAccount {
  username: string;
  password: string;
  scopes: Scope[];
}

/**
 * What an operator does with `tms users create` before the first start: the `admin` account holding
 * ADMIN_KEY, then the given accounts, their passwords hashed at CHEAP_SCRYPT so that logins are fast.
 */
export async function seedAccounts(dataDir: string, accounts: readonly SeedAccount[]): Promise<void> {
  const offline = await openOffline(dataDir, { create: true, scrypt: CHEAP_SCRYPT });
  try {
    await offline.access.ensureAdmin({ adminKey: ADMIN_KEY });
    for (const account of accounts) await offline.access.createAccount(OPERATOR, account);
  } finally {
    await offline.close();
  }
}

/** A real server (real port, real LevelDB in a temp folder) whose store was seeded with `accounts` first. */
export async function startSeededServer(accounts: readonly SeedAccount[], overrides: Partial<Config> = {}): Promise<TestServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-api-accounts-'));
  try {
    await seedAccounts(dataDir, accounts);
    const server = await startTestServer({ ...overrides, dataDir });
    return {
      ...server,
      async stop() {
        await server.stop();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** The call must answer 200, or the test set-up is broken: throws with what came back. */
export function expectOk(what: string, result: HttpResult): HttpResult {
  if (result.status !== 200) throw new Error(`${what}: expected 200, got ${result.status} ${result.text}`);
  return result;
}

export interface Session {
  token: string;
  expires_at: string;
}

export async function login(server: { port: number }, username: string, password: string): Promise<Session> {
  const result = await call(server, 'POST', '/v1/login', { body: { username, password }, key: null });
  return expectOk(`login as ${username}`, result).json as Session;
}

export async function logout(server: { port: number }, token: string): Promise<void> {
  expectOk('logout', await call(server, 'POST', '/v1/logout', { key: token }));
}

export interface CreatedKey {
  key_id: string;
  key: string;
  name: string;
  scopes: Scope[];
  account: string;
  created_at: string;
  expires_at: string;
}

/** POST /v1/keys as `bearer`; returns the secret, which the server shows only this once. */
export async function createKey(
  server: { port: number },
  bearer: string,
  body: { name: string; scopes: Scope[]; expires_at?: string; account?: string },
): Promise<CreatedKey> {
  return expectOk(`create key ${body.name}`, await call(server, 'POST', '/v1/keys', { body, key: bearer })).json as CreatedKey;
}

export async function revokeKey(server: { port: number }, bearer: string, keyId: string): Promise<void> {
  expectOk(`revoke key ${keyId}`, await call(server, 'DELETE', `/v1/keys/${keyId}`, { key: bearer }));
}

/** A bearer that looks like a real key (right prefix, id and length) but was never issued. */
export const UNISSUED_KEY = `tms_key_0123456789abcdef_${'A'.repeat(43)}`;

/** Which of `secrets` occur in any byte of any file under `dir` (as UTF-8 or UTF-16LE). */
export async function secretsInFiles(dir: string, secrets: readonly string[]): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const contents = await Promise.all(entries.filter((e) => e.isFile()).map((e) => readFile(join(e.parentPath, e.name))));
  return secrets.filter((secret) =>
    contents.some((bytes) => bytes.includes(Buffer.from(secret, 'utf8')) || bytes.includes(Buffer.from(secret, 'utf16le'))),
  );
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
