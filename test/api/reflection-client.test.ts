import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/server.ts';

const run = promisify(execFile);
const buf = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'buf');

/** `buf curl`: a real third-party client that learns the API from server reflection, with no proto files. */
async function bufCurl(server: TestServer, args: string[]): Promise<string> {
  const { stdout } = await run(buf, ['curl', '--protocol', 'grpc', '--http2-prior-knowledge', ...args, server.url], { timeout: 30_000 });
  return stdout;
}

const reflection = suite<{ server: TestServer }>('reflection with buf curl');
reflection.before(async (ctx) => {
  ctx.server = await startTestServer();
});
reflection.after(async (ctx) => {
  await ctx.server.stop();
});

for (const protocol of ['grpc-v1', 'grpc-v1alpha']) {
  reflection(`buf curl lists every service over reflection ${protocol}`, async ({ server }) => {
    const services = (await bufCurl(server, ['--reflect-protocol', protocol, '--list-services'])).trim().split('\n');
    for (const name of ['tms.v1.EventService', 'tms.v1.TimelineService', 'tms.v1.ParadoxService', 'tms.v1.AnchorService', 'tms.v1.TutorialService', 'tms.v1.AccountService', 'grpc.health.v1.Health']) {
      assert.ok(services.includes(name), `${name} listed`);
    }
  });
}

reflection('buf curl calls an RPC it only knows from reflection', async ({ server }) => {
  const { url } = server;
  const { stdout } = await run(
    buf,
    ['curl', '--protocol', 'grpc', '--http2-prior-knowledge', '-H', `authorization: Bearer ${ADMIN_KEY}`, '-d', '{"timeline_id":"primary"}', `${url}/tms.v1.TimelineService/GetTimeline`],
    { timeout: 30_000 },
  );
  const body = JSON.parse(stdout) as { timeline: { timelineId: string; kind: string } };
  assert.is(body.timeline.timelineId, 'primary');
  assert.is(body.timeline.kind, 'primary');
});

reflection('buf curl without a key gets unauthenticated', async ({ server }) => {
  const error = await run(buf, ['curl', '--protocol', 'grpc', '--http2-prior-knowledge', '-d', '{}', `${server.url}/tms.v1.TimelineService/ListTimelines`], { timeout: 30_000 }).then(
    () => undefined,
    (failure: { stderr: string }) => failure,
  );
  assert.ok(error, 'the call fails');
  assert.match(error!.stderr, /unauthenticated/);
});

reflection.run();
