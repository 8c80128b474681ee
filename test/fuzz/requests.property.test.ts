// Property: whatever arrives (every route and RPC's documented example, then mutated: wrong types, huge
// numbers, deep nesting, bad UTF-8, truncated and oversized bodies, odd methods, content types, credentials
// and query strings), tms never answers 5xx and never crashes; every error is the one error JSON, an
// invalid argument names its field, and a rejected request changes no stored data.
// CI runs a fixed seed (FUZZ_RUNS cases, 2000 by default); `npm run fuzz -- --minutes N` runs longer with new seeds.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { request } from 'node:http';
import { call, startTestServer, type TestServer } from '../support/server.ts';
import { fuzzRequest, type Fixtures, type FuzzRequest } from './request-arbitraries.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const SECONDS = process.env.FUZZ_SECONDS ? Number(process.env.FUZZ_SECONDS) : undefined;

interface Answer {
  status: number;
  text: string;
  /** The server closed the connection before answering (only allowed for a body over the limit). */
  closed?: boolean;
}

function send(server: TestServer, req: FuzzRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const headers = { ...req.headers, ...(req.body !== undefined && { 'content-length': String(req.body.length) }) };
    const outgoing = request({ host: '127.0.0.1', port: server.port, method: req.method, path: req.path, headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) return;
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') resolve({ status: 0, text: '', closed: true });
      else reject(error);
    });
    outgoing.end(req.body);
  });
}

/** Everything a request could change, as text: timelines (revisions, counts), accounts, keys, saved requests, the fixture anchor. */
async function digest(server: TestServer, fixtures: Fixtures): Promise<string> {
  const read = async (path: string) => {
    const res = await call(server, 'GET', path);
    assert.is(res.status, 200, `${path}: ${res.text}`);
    return res.json;
  };
  const [timelines, accounts, keys, saved, anchor] = await Promise.all([
    read('/v1/timelines?page_size=1000'),
    read('/v1/accounts?page_size=1000'),
    read('/v1/keys?page_size=1000'),
    read('/v1/console/requests?page_size=1000'),
    // A fuzzed request that was accepted may have deleted the anchor's timeline, and the anchor with it.
    call(server, 'GET', `/v1/check-anchor-stability?anchor_id=${fixtures.anchor_id}`).then((res) => (res.status === 200 ? res.json : { gone: res.status })),
  ]);
  return JSON.stringify({
    timelines: timelines.timelines,
    accounts: accounts.accounts,
    keys: keys.keys.map((k: { key_id: string; scopes: string[]; expires_at: string }) => [k.key_id, k.scopes, k.expires_at]),
    saved: saved.saved_requests,
    anchor: [anchor.anchor?.environment ?? anchor.environment, anchor.anchor?.description],
  });
}

async function makeFixtures(server: TestServer): Promise<Fixtures> {
  const ok = async (method: string, path: string, body: unknown) => {
    const res = await call(server, method, path, { body });
    assert.is(res.status, 200, `${method} ${path}: ${res.text}`);
    return res.json;
  };
  const timeline = await ok('POST', '/v1/create-timeline', { description: 'fuzz' });
  const changed = await ok('POST', '/v1/manipulate-event', {
    timeline_id: timeline.timeline_id,
    event_id: 'storming-of-the-bastille',
    new_outcome: { description: 'fuzzed', changes: [{ action: 'negotiate', time: '1789-07-14T10:00:00Z' }] },
  });
  const anchor = await ok('POST', '/v1/set-anchor', { timestamp: '2025-01-01T00:00:00Z', description: 'fuzz', accuracy: 'nanosecond', timeline_id: timeline.timeline_id });
  const key = await ok('POST', '/v1/keys', { name: 'fuzz', scopes: ['read'] });
  const saved = await ok('POST', '/v1/console/requests', { name: 'fuzz', method: 'GET', path: '/v1/timelines' });
  const shared = await ok('POST', `/v1/console/requests/${saved.saved_request.id}/share`, {});
  return {
    timeline_id: timeline.timeline_id,
    new_event_id: changed.new_event_id,
    anchor_id: anchor.anchor_id,
    key_id: key.key_id,
    id: saved.saved_request.id,
    share_token: shared.saved_request.share_token,
  };
}

test(`fuzzed requests (seed ${SEED}, ${SECONDS ? `${SECONDS} s` : `${RUNS} cases`}): never 5xx, one error shape with a field, rejected requests change nothing`, async () => {
  const server = await startTestServer();
  try {
    const fixtures = await makeFixtures(server);
    let state = await digest(server, fixtures);
    const counts = new Map<number, number>();
    const result = await fc.check(
      fc.asyncProperty(fuzzRequest(fixtures, server.adminKey), async (req) => {
        const answer = await send(server, req);
        counts.set(answer.status, (counts.get(answer.status) ?? 0) + 1);
        const where = `${req.method} ${req.path.slice(0, 120)} [${req.mutation}]`;
        if (answer.closed) {
          assert.ok(req.body !== undefined && req.body.length > 1024 * 1024, `${where}: connection closed without an answer`);
          return;
        }
        assert.ok(answer.status >= 200 && answer.status < 500, `${where}: ${answer.status} ${answer.text.slice(0, 300)}`);
        if (answer.status < 400) {
          state = await digest(server, fixtures);
          return;
        }
        if (req.method !== 'HEAD') {
          let error: { code?: unknown; message?: unknown; details?: { type?: string; debug?: { field?: unknown } }[] };
          try {
            error = JSON.parse(answer.text);
          } catch {
            throw new Error(`${where}: ${answer.status} without the error JSON: ${answer.text.slice(0, 200)}`);
          }
          assert.type(error.code, 'string', where);
          assert.type(error.message, 'string', where);
          if (error.code === 'invalid_argument') {
            const fields = (error.details ?? []).filter((d) => d.type === 'tms.v1.FieldViolation').map((d) => d.debug?.field);
            const named = fields.length > 0 && fields.every((f) => typeof f === 'string' && f !== '');
            assert.ok(named, `${where}: invalid_argument without a field: ${answer.text.slice(0, 300)}`);
          }
        }
        assert.is(await digest(server, fixtures), state, `${where}: a rejected request (${answer.status}) changed stored data`);
      }),
      { seed: SEED, numRuns: SECONDS ? Number.MAX_SAFE_INTEGER : RUNS, ...(SECONDS && { interruptAfterTimeLimit: SECONDS * 1000, markInterruptAsFailure: false }) },
    );
    if (result.failed) {
      assert.unreachable(`${(result.errorInstance as Error | undefined)?.message ?? String(result.errorInstance)}\nseed ${result.seed}, path ${result.counterexamplePath}, after ${result.numRuns} cases\n${fc.stringify(result.counterexample)}`);
    }
    const summary = [...counts].sort(([a], [b]) => a - b).map(([status, n]) => `${status}:${n}`).join(' ');
    console.log(`fuzz answers by status: ${summary}`);
    assert.ok((counts.get(200) ?? 0) > 0 && [...counts.keys()].some((s) => s >= 400), 'both accepted and refused requests were tried');
  } finally {
    await server.stop();
  }
});

test.run();
