import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseTrustedProxies } from './server/client-address.ts';
import { NOT_A_POSTGRES_URL, POSTGRES_URL } from './store/postgres/open-failures.ts';

/** What a number setting is written as: decimal digits (`z.coerce.number` would read " " as 0 and "0x1F90" as 8080). */
const DECIMAL = /^\d+(\.\d+)?$/;

/** A number setting, from a flag or variable given as text or from code as a number. */
const numberSetting = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === 'string' && DECIMAL.test(value.trim()) ? Number(value) : value), schema);
/** The type's own words only for a value that is no number: a number out of range gets its range's words. */
const notANumber = (words: string) => (issue: { code: string }) => (issue.code === 'invalid_type' ? words : undefined);
const wholeNumber = () => z.number({ error: notANumber('must be a whole number in decimal digits') }).int('must be a whole number');
const AT_LEAST_1 = 'must be 1 or more';
/** Each worker holds a V8 heap: a slipped digit (500 for 5) must not start hundreds on a small machine. */
const MAX_ANALYSIS_THREADS = 4 * availableParallelism();

/** Everything an operator can set. Each field has an environment variable and a command-line flag. */
export const configSchema = z.object({
  port: numberSetting(wholeNumber().min(0, 'must be 0 to 65535').max(65535, 'must be 0 to 65535')).default(8080),
  host: z.string().min(1).default('127.0.0.1'),
  dataDir: z.string().min(1).default('./data'),
  /** PostgreSQL instead of the LevelDB folder: `postgres://user:password@host:port/database`. */
  databaseUrl: z.string().regex(POSTGRES_URL, NOT_A_POSTGRES_URL).optional(),
  adminKey: z.string().min(16, 'must be at least 16 characters').regex(/^\S+$/, 'must not contain spaces').optional(),
  tlsCert: z.string().optional(),
  tlsKey: z.string().optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Requests per second per credential; 0 turns rate limiting off (load benchmarks). */
  rateLimit: numberSetting(z.number({ error: notANumber('must be a number in decimal digits') }).min(0, 'must be 0 or more')).default(50),
  /** How long a login session token stays valid. */
  sessionTtlMs: numberSetting(wholeNumber().positive(AT_LEAST_1)).default(60 * 60_000),
  /** First lockout after repeated failed logins; each repeat doubles it, up to 15 min or this, if longer. */
  loginLockMs: numberSetting(wholeNumber().positive(AT_LEAST_1)).default(60_000),
  bodyLimitBytes: numberSetting(wholeNumber().positive(AT_LEAST_1)).default(1024 * 1024),
  requestTimeoutMs: numberSetting(wholeNumber().positive(AT_LEAST_1)).default(30_000),
  maxPageSize: numberSetting(wholeNumber().positive(AT_LEAST_1)).default(1000),
  defaultPageSize: numberSetting(wholeNumber().positive(AT_LEAST_1)).default(50),
  analysisThreads: numberSetting(wholeNumber().min(1, AT_LEAST_1).max(MAX_ANALYSIS_THREADS, `must be 1 to ${MAX_ANALYSIS_THREADS} (four per core here)`)).optional(),
  shutdownGraceMs: numberSetting(wholeNumber().positive(AT_LEAST_1)).default(10_000),
  shutdownDrainMs: numberSetting(wholeNumber().nonnegative('must be 0 or more')).default(0),
  /** Proxies whose `X-Forwarded-For` names the client (login throttling by address): addresses or subnets, comma-separated. */
  trustedProxies: z
    .string()
    .superRefine((list, ctx) => {
      const entries = parseTrustedProxies(list);
      if (typeof entries === 'string') ctx.addIssue({ code: 'custom', message: entries });
    })
    .default(''),
  /** From the environment as true/false, 1/0, yes/no or on/off; `z.coerce.boolean` would read "false" as true. */
  seedCatalogue: z.union([z.boolean(), z.stringbool()], { error: 'must be true or false (also 1/0, yes/no, on/off)' }).default(true),
});
export type Config = z.infer<typeof configSchema>;

/** `serve`'s flag for each config field, with its argument. */
export const configFlags: Record<keyof Config, string> = {
  port: '--port <port>',
  host: '--host <host>',
  dataDir: '--data-dir <dir>',
  databaseUrl: '--database-url <url>',
  adminKey: '--admin-key <key>',
  tlsCert: '--tls-cert <file>',
  tlsKey: '--tls-key <file>',
  logLevel: '--log-level <level>',
  rateLimit: '--rate-limit <perSecond>',
  sessionTtlMs: '--session-ttl-ms <ms>',
  loginLockMs: '--login-lock-ms <ms>',
  bodyLimitBytes: '--body-limit-bytes <bytes>',
  requestTimeoutMs: '--request-timeout-ms <ms>',
  maxPageSize: '--max-page-size <n>',
  defaultPageSize: '--default-page-size <n>',
  analysisThreads: '--analysis-threads <n>',
  shutdownGraceMs: '--shutdown-grace-ms <ms>',
  shutdownDrainMs: '--shutdown-drain-ms <ms>',
  trustedProxies: '--trusted-proxies <list>',
  seedCatalogue: '--no-seed',
};

/** Environment variable for each config field. */
export const configEnv: Record<keyof Config, string> = {
  port: 'TMS_PORT',
  host: 'TMS_HOST',
  dataDir: 'TMS_DATA_DIR',
  databaseUrl: 'TMS_DATABASE_URL',
  adminKey: 'TMS_ADMIN_KEY',
  tlsCert: 'TMS_TLS_CERT',
  tlsKey: 'TMS_TLS_KEY',
  logLevel: 'TMS_LOG_LEVEL',
  rateLimit: 'TMS_RATE_LIMIT',
  sessionTtlMs: 'TMS_SESSION_TTL_MS',
  loginLockMs: 'TMS_LOGIN_LOCK_MS',
  bodyLimitBytes: 'TMS_BODY_LIMIT_BYTES',
  requestTimeoutMs: 'TMS_REQUEST_TIMEOUT_MS',
  maxPageSize: 'TMS_MAX_PAGE_SIZE',
  defaultPageSize: 'TMS_DEFAULT_PAGE_SIZE',
  analysisThreads: 'TMS_ANALYSIS_THREADS',
  shutdownGraceMs: 'TMS_SHUTDOWN_GRACE_MS',
  shutdownDrainMs: 'TMS_SHUTDOWN_DRAIN_MS',
  trustedProxies: 'TMS_TRUSTED_PROXIES',
  seedCatalogue: 'TMS_SEED_CATALOGUE',
};

/** Settings whose values an error message does not repeat. */
const SECRETS: ReadonlySet<keyof Config> = new Set(['adminKey', 'databaseUrl']);

/** A setting that cannot be used: the message names it (variable and value, unless a secret) and what it takes. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Flags win over environment variables, which win over defaults. */
export function loadConfig(flags: Partial<Record<keyof Config, unknown>>, env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {};
  const fromFlag = new Set<keyof Config>();
  for (const [key, variable] of Object.entries(configEnv) as [keyof Config, string][]) {
    const flag = flags[key];
    const value = flag ?? env[variable];
    if (value === undefined || value === '') continue;
    raw[key] = value;
    if (flag !== undefined) fromFlag.add(key);
  }
  for (const key of Object.keys(flags) as (keyof Config)[]) {
    if (flags[key] === '') throw new ConfigError(`configuration ${key} (${configFlags[key].split(' ')[0]}): is empty; give a value, or leave the flag out for the default`);
  }
  // Both name the store: a flag names it over an environment variable, and two flags are one too many.
  if (fromFlag.has('dataDir') && fromFlag.has('databaseUrl')) {
    throw new ConfigError('configuration: give either --data-dir (a LevelDB folder) or --database-url (PostgreSQL), not both');
  }
  if (fromFlag.has('dataDir')) delete raw['databaseUrl'];
  // A value is named the way it was given: by its flag, or else by its environment variable.
  const source = (key: keyof Config) => (fromFlag.has(key) ? configFlags[key].split(' ')[0]! : configEnv[key]);
  // A value nobody gave is the default: said so, lest the operator look for a setting that is not there.
  const named = (key: keyof Config) => (raw[key] === undefined ? `${configEnv[key]}, its default` : source(key));
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0]) as keyof Config;
    const given = SECRETS.has(key) || raw[key] === undefined ? '' : `, got ${JSON.stringify(String(raw[key]))}`;
    throw new ConfigError(`configuration ${key} (${source(key)}): ${issue.message}${given}`);
  }
  const config = parsed.data;
  if ((config.tlsCert === undefined) !== (config.tlsKey === undefined)) {
    const [missing, given] = config.tlsCert === undefined ? (['tlsCert', 'tlsKey'] as const) : (['tlsKey', 'tlsCert'] as const);
    throw new ConfigError(`configuration ${missing} (${source(missing)}): required with ${source(given)}; set both for TLS, or neither`);
  }
  if (config.defaultPageSize > config.maxPageSize) {
    throw new ConfigError(
      `configuration defaultPageSize (${named('defaultPageSize')}): ${config.defaultPageSize} is above maxPageSize (${named('maxPageSize')}) ${config.maxPageSize}; lower it or raise the maximum`,
    );
  }
  return config;
}
