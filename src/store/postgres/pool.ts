import pg from 'pg';

export interface PostgresOptions {
  /** `postgres://user:password@host:port/database`. */
  url: string;
  /** The schema tms keeps its tables in (created when missing; default `public`). */
  schema?: string;
  /** Connections this node holds at most (default 10). */
  maxConnections?: number;
  /** Each limit, in ms: waiting for a connection, one statement, waiting for a lock, idling in a transaction. */
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
  lockTimeoutMs?: number;
  idleInTransactionTimeoutMs?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * A pool whose every wait is bounded: pg waits forever for a connection by default, and the server's own
 * statement, lock and idle-in-transaction limits are off unless the session sets them.
 */
export function openPool(options: PostgresOptions): pg.Pool {
  const schema = options.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) throw new Error(`PostgreSQL schema ${JSON.stringify(schema)}: use lower-case letters, digits and _`);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    statement_timeout: options.statementTimeoutMs ?? 10_000,
    lock_timeout: options.lockTimeoutMs ?? 5_000,
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 30_000,
    // A peer gone without a word (a network cut, a host lost) is noticed by TCP's probes, not never.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: 'tms',
    options: `-c search_path=${schema}`,
  });
  // A connection the server drops (a restart, a failover, the network) emits 'error': on the pool while idle,
  // on the client while checked out. The query in flight fails by itself and the pool makes a new connection
  // next time, so neither event may crash the process.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
