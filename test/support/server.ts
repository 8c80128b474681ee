import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { startApp, type RunningApp } from '../../src/app.ts';
import { ADMIN_KEY } from './admin-key.ts';

export { ADMIN_KEY };

export interface TestServer {
  app: RunningApp;
  url: string;
  port: number;
  dataDir: string;
  adminKey: string;
  stop(): Promise<void>;
}

/**
 * A real server on a real port over a real LevelDB: in a temp folder that `stop()` removes, or in
 * `overrides.dataDir`, which stays with the caller (stop() leaves it in place).
 */
export async function startTestServer(overrides: Partial<Config> = {}): Promise<TestServer> {
  const ownsDataDir = overrides.dataDir === undefined;
  const dataDir = overrides.dataDir ?? (await mkdtemp(join(tmpdir(), 'tms-test-')));
  try {
    // On PostgreSQL the folder is not the store (a test may check that nothing is written there): the settings
    // name one store only.
    const { dataDir: _folder, ...rest } = overrides;
    const store = overrides.databaseUrl === undefined ? { dataDir } : {};
    const config = loadConfig({ port: 0, adminKey: ADMIN_KEY, logLevel: 'silent', rateLimit: 0, ...rest, ...store }, {});
    const app = await startApp(config, createLogger(config.logLevel));
    return {
      app,
      url: app.url,
      port: app.port,
      dataDir,
      adminKey: ADMIN_KEY,
      async stop() {
        await app.close();
        if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read whatever came back
}

/** node:http, because fetch refuses a body on GET and the spec sends GET with a JSON body. */
export function call(
  server: { port: number; host?: string },
  method: string,
  path: string,
  options: { body?: unknown; rawBody?: string | Buffer; key?: string | null; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const headers: Record<string, string> = { ...options.headers };
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  if (options.key !== null) headers['authorization'] ??= `Bearer ${options.key ?? ADMIN_KEY}`;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: server.host ?? '127.0.0.1', port: server.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}
