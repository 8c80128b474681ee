import { z } from 'zod';

/** Everything an operator can set. Each field has an environment variable and a command-line flag. */
export const configSchema = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(8080),
  host: z.string().min(1).default('127.0.0.1'),
  dataDir: z.string().min(1).default('./data'),
  /** PostgreSQL instead of the LevelDB folder: `postgres://user:password@host:port/database`. */
  databaseUrl: z.string().regex(/^postgres(ql)?:\/\/\S+$/, 'must be a postgres:// or postgresql:// URL').optional(),
  adminKey: z.string().min(16, 'TMS_ADMIN_KEY must be at least 16 characters').optional(),
  tlsCert: z.string().optional(),
  tlsKey: z.string().optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Requests per second per credential; 0 turns rate limiting off (load benchmarks). */
  rateLimit: z.coerce.number().min(0).default(50),
  /** How long a login session token stays valid. */
  sessionTtlMs: z.coerce.number().int().positive().default(60 * 60_000),
  /** First lockout after repeated failed logins; each repeat doubles it, up to 15 min or this, if longer. */
  loginLockMs: z.coerce.number().int().positive().default(60_000),
  bodyLimitBytes: z.coerce.number().int().positive().default(1024 * 1024),
  requestTimeoutMs: z.coerce.number().int().positive().default(30_000),
  maxPageSize: z.coerce.number().int().positive().default(1000),
  defaultPageSize: z.coerce.number().int().positive().default(50),
  analysisThreads: z.coerce.number().int().min(1).optional(),
  shutdownGraceMs: z.coerce.number().int().positive().default(10_000),
  shutdownDrainMs: z.coerce.number().int().nonnegative().default(0),
  /** From the environment as true/false, 1/0, yes/no or on/off; `z.coerce.boolean` would read "false" as true. */
  seedCatalogue: z.union([z.boolean(), z.stringbool()], { error: 'must be true or false (also 1/0, yes/no, on/off)' }).default(true),
});
export type Config = z.infer<typeof configSchema>;

/** Environment variable for each config field (flags use the kebab-case field name). */
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
  seedCatalogue: 'TMS_SEED_CATALOGUE',
};

/** A setting that cannot be used: the message names it (variable and value) and what it takes. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Flags win over environment variables, which win over defaults. */
export function loadConfig(flags: Partial<Record<keyof Config, unknown>>, env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const [key, variable] of Object.entries(configEnv)) {
    const value = flags[key as keyof Config] ?? env[variable];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0]) as keyof Config;
    throw new ConfigError(`configuration ${key} (${configEnv[key]}): ${issue.message}`);
  }
  const config = parsed.data;
  if (config.defaultPageSize > config.maxPageSize) {
    throw new ConfigError(
      `configuration defaultPageSize (${configEnv.defaultPageSize}): ${config.defaultPageSize} is above maxPageSize (${configEnv.maxPageSize}) ${config.maxPageSize}; lower it or raise the maximum`,
    );
  }
  return config;
}
