// A paradox check whose time limit passes while it waits for the analysis worker is answered deadline_exceeded
// and never runs: the worker's time goes to requests whose clients still wait for an answer. A manipulation whose
// safety check it was is not made.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateSyntheticEvents } from '../../src/synthetic/generator.ts';
import { call, startTestServer, type HttpResult, type TestServer } from '../support/server.ts';
import { withStorage } from '../support/cli.ts';
import { eventually } from '../support/eventually.ts';
import { sample } from '../support/metrics.ts';

const workerTasks = async (server: TestServer) => sample((await call(server, 'GET', '/metrics', { key: null })).text, 'tms_analysis_tasks_completed_total', 'ran="worker"')!;
const queued = async (server: TestServer) => sample((await call(server, 'GET', '/metrics', { key: null })).text, 'tms_analysis_queue_size', '')!;

/**
 * `request` made while the one analysis worker simulates six new nanosecond anchors' noise, one after another, with
 * at least three of them still waiting for it.
 */
async function whileTheWorkerIsBusy(server: TestServer, round: number, request: () => Promise<HttpResult>): Promise<HttpResult> {
  const anchorIds: string[] = [];
  for (let i = 1; i <= 6; i++) {
    const set = await call(server, 'POST', '/v1/set-anchor', { body: { timestamp: `202${round}-01-0${i}T00:00:00Z`, description: `busy ${round}.${i}`, accuracy: 'nanosecond' } });
    assert.is(set.status, 200, set.text);
    anchorIds.push(set.json.anchor_id as string);
  }
  const checks = anchorIds.map((anchor_id) => call(server, 'GET', '/v1/check-anchor-stability', { body: { anchor_id } }));
  await eventually('anchor simulations waiting for the worker', async () => (await queued(server)) >= 3, 10_000, 1);
  const answer = await request();
  for (const check of await Promise.all(checks)) assert.is(check.status, 200, check.text);
  await eventually('the queue empty', async () => (await queued(server)) === 0, 10_000, 10);
  return answer;
}

test('a check that waits for the worker past its deadline is answered 504 and leaves the worker nothing to do', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-abandoned-'));
  // Large enough that its check runs on the worker, not inline.
  await withStorage({ dataDir }, (storage) => storage.timelines.bulkLoad('primary', generateSyntheticEvents({ events: 30_000, places: 50, seed: 3, maxCauses: 2 })));
  const server = await startTestServer({ dataDir, analysisThreads: 1 });
  try {
    const ranBefore = await workerTasks(server);
    const first = await call(server, 'GET', '/v1/check-paradox', { body: { timeline_id: 'primary' } });
    assert.is(first.status, 200, first.text);
    assert.is(await workerTasks(server), ranBefore + 1, 'the check runs on the worker');
    const late = await whileTheWorkerIsBusy(server, 1, () =>
      call(server, 'POST', '/tms.v1.ParadoxService/CheckParadox', { headers: { 'connect-timeout-ms': '20' }, body: { timeline_id: 'primary' } }),
    );
    assert.is(late.json.code, 'deadline_exceeded', late.text);
    assert.is(await workerTasks(server), ranBefore + 7, 'the six simulations ran; the abandoned check did not');

    const checked = await call(server, 'GET', '/v1/check-paradox', { body: { timeline_id: 'primary' } });
    assert.is(checked.status, 200, checked.text);
    assert.is(checked.json.figures.events_analysed, 30_000);
    assert.is(await workerTasks(server), ranBefore + 8, 'the same check with time to spare runs on the worker');

    const branch = await call(server, 'POST', '/v1/create-timeline', { body: { base_timeline_id: 'primary', description: 'safety' } });
    assert.is(branch.status, 200, branch.text);
    const timelineId = branch.json.timeline_id as string;
    const change = { timeline_id: timelineId, event_id: 'syn-000000000', safety_check: true, new_outcome: { description: 'late', changes: [] } };
    const manipulated = await whileTheWorkerIsBusy(server, 2, () =>
      call(server, 'POST', '/tms.v1.EventService/ManipulateEvent', { headers: { 'connect-timeout-ms': '20' }, body: change }),
    );
    assert.is(manipulated.json.code, 'deadline_exceeded', manipulated.text);
    const timelines = (await call(server, 'GET', '/v1/timelines')).json.timelines as { timeline_id: string; revision: number }[];
    assert.is(timelines.find((timeline) => timeline.timeline_id === timelineId)?.revision, 0, 'the manipulation whose safety check never ran was not made');
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test.run();
