// The console's snippets, run as a user would run them: each REST curl snippet in bash against a real server gets
// the answer the console's own request gets, and the Connect client snippet imports files protoc-gen-es writes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { snippets } from '../../console/src/snippets.ts';
import { emptyDraft, type Draft } from '../../console/src/draft.ts';
import { ADMIN_KEY, call, startTestServer, type TestServer } from '../support/server.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

const snippet = suite<{ server: TestServer; origin: string }>('console snippets, run');
snippet.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.origin = ctx.server.url;
});
snippet.after(async (ctx) => {
  await ctx.server.stop();
});

const draft = (fields: Partial<Draft>): Draft => ({ ...emptyDraft(), ...fields });

/** Runs a snippet in bash with the credential it expects, printing the status last; a hang fails. */
async function runCurl(text: string): Promise<{ status: number; output: string }> {
  const { stdout } = await run('bash', ['-c', `${text} -o /dev/null -w '%{http_code}'`], {
    env: { ...process.env, TMS_TOKEN: ADMIN_KEY },
    timeout: 15_000,
  });
  return { status: Number(stdout.trim().slice(-3)), output: stdout };
}

const curlOf = (d: Draft, origin: string): string => snippets(d, origin).find((s) => s.label === 'curl')!.text;

snippet('curl snippets answer as the console does: paths with spaces and commas, no leading slash, HEAD', async ({ server, origin }) => {
  const cases: [Draft, number][] = [
    [draft({ path: '/v1/search-events?location=Paris, France&page_size=2' }), 200],
    [draft({ path: 'v1/timelines' }), 200],
    [draft({ method: 'HEAD', path: '/v1/timelines' }), 200],
    [draft({ body: '{"location": "Rome", "page_size": 1}' }), 200],
    [draft({ method: 'POST', path: '/v1/create-timeline', body: `{"description": "it's $HOME and \`date\`"}` }), 200],
    [draft({ path: '/timeline/tl_does_not_exist' }), 404],
  ];
  for (const [d, status] of cases) {
    const text = curlOf(d, origin);
    assert.is((await runCurl(text)).status, status, text);
  }
  const made = await call(server, 'GET', '/v1/timelines', { body: { page_size: 1000 } });
  assert.ok(
    made.json.timelines.some((t: { description: string }) => t.description === "it's $HOME and `date`"),
    'the body reached the server as written, quotes and all',
  );
});

snippet('the Connect client snippet imports the files protoc-gen-es writes', ({ origin }) => {
  for (const path of ['/tms.v1.TimelineService/GetTimeline', '/tms.v1.EventService/SearchEvents', '/tms.v1.AnchorService/SetAnchor']) {
    const ts = snippets(draft({ method: 'POST', path, body: '{}' }), origin).find((s) => s.label === 'TypeScript (Connect client)')!.text;
    const imported = /from '\.\/gen\/([^']+)\.js'/.exec(ts)?.[1];
    assert.ok(imported, ts);
    assert.ok(existsSync(join(root, 'src', 'gen', `${imported}.ts`)), `${imported}.ts is a generated file`);
  }
});

snippet('the fetch snippet runs in Node, an answer without a body (HEAD) included', async ({ origin }) => {
  for (const [d, status] of [
    [draft({ method: 'HEAD', path: '/v1/timelines' }), 200],
    [draft({ body: '{"location": "Rome", "page_size": 1}' }), 200],
    [draft({ method: 'DELETE', path: '/v1/console/requests/req_nope' }), 404],
  ] as const) {
    const ts = snippets(d, origin).find((s) => s.label === 'TypeScript (fetch)')!.text;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', ts], { env: { ...process.env, TMS_TOKEN: ADMIN_KEY }, timeout: 15_000 });
    assert.ok(stdout.startsWith(`${status} `), `${ts}\n→ ${stdout}`);
  }
});

snippet.run();
