// PostgreSQL for end-to-end tests: a database of its own per test, and a TCP relay that can cut the line.
import { randomBytes } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import pg from 'pg';

/** Runs `work` on a connection of its own to `url`, closed afterwards. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database on the server `url` names; returns its URL. */
export async function createDatabase(url: string): Promise<string> {
  const name = `tms_${randomBytes(6).toString('hex')}`;
  await withClient(url, (client) => client.query(`CREATE DATABASE ${name}`));
  const created = new URL(url);
  created.pathname = `/${name}`;
  return created.toString();
}

export async function dropDatabase(adminUrl: string, databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  await withClient(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** Runs SQL as the admin in database `databaseUrl`. */
export const sqlOn = (databaseUrl: string, sql: string): Promise<unknown> => withClient(databaseUrl, (client) => client.query(sql));

/**
 * A login role in the database `databaseUrl` names, with `schemaRights` on its `public` schema (`USAGE`, or
 * `USAGE, CREATE`) and, when `tableRights`, those rights on every table there now; returns the URL that logs in as it.
 */
export async function createRole(databaseUrl: string, role: string, schemaRights: string, tableRights?: string): Promise<string> {
  const password = `${role}-password`;
  await withClient(databaseUrl, async (client) => {
    await client.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    await client.query(`GRANT CONNECT ON DATABASE ${new URL(databaseUrl).pathname.slice(1)} TO ${role}`);
    await client.query(`GRANT ${schemaRights} ON SCHEMA public TO ${role}`);
    if (tableRights) await client.query(`GRANT ${tableRights} ON ALL TABLES IN SCHEMA public TO ${role}`);
  });
  const url = new URL(databaseUrl);
  url.username = role;
  url.password = password;
  return url.toString();
}

/** The schemas `tms restore` and `tms copy-store` stage a store in (`tms_staging_<pid>`) that are still there. */
export const stagingSchemas = (databaseUrl: string): Promise<string[]> =>
  withClient(databaseUrl, async (client) => (await client.query<{ name: string }>(`SELECT nspname AS name FROM pg_namespace WHERE starts_with(nspname, 'tms_staging_')`)).rows.map((row) => row.name));

/**
 * A TCP relay in front of the database: `cut()` drops every connection and refuses new ones, `mend()` undoes it;
 * `freeze()` passes nothing on, either way, on connections open or new (a server that stops answering, a network
 * that drops packets), and `thaw()` passes on what was held.
 */
export interface Relay {
  /** The database URL, through the relay. */
  url: string;
  cut(): Promise<void>;
  mend(): Promise<void>;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startRelay(databaseUrl: string): Promise<Relay> {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  let frozen = false;
  const listen = (port: number): Promise<Server> =>
    new Promise((resolve, reject) => {
      const server = createServer((client) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
        if (frozen) for (const socket of [client, upstream]) socket.pause();
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve(server));
    });
  let server: Server | undefined = await listen(0);
  const port = (server.address() as AddressInfo).port;
  const through = new URL(databaseUrl);
  through.hostname = '127.0.0.1';
  through.port = String(port);
  const stop = async () => {
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise((resolve) => closing.close(resolve));
  };
  return {
    url: through.toString(),
    cut: stop,
    async mend() {
      server ??= await listen(port);
    },
    freeze() {
      frozen = true;
      for (const socket of sockets) socket.pause();
    },
    thaw() {
      frozen = false;
      for (const socket of sockets) socket.resume();
    },
    close: stop,
  };
}
