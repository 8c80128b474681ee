import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, startTestServer, type HttpResult, type TestServer } from '../support/server.ts';
import { grpcCall } from '../support/grpc.ts';

/**
 * Every paradox kind built through the public routes only, on branches of the seeded catalogue.
 * Catalogue facts the scenarios rely on (src/catalogue/historical-events.json):
 *   great-fire-of-rome (0064) → death-of-nero (0068), its only effect
 *   emperor-wu-of-han-accession (-0140) → death-of-emperor-wu-of-han (-0086), its only effect
 *   battle-of-the-milvian-bridge (0312) → dedication-of-constantinople (0330), its only effect
 *   perry-arrives-in-japan (1853, no causes) → edo-renamed-tokyo (1868), meiji-constitution (1889)
 *   relief-of-orleans (1429) → execution-of-joan-of-arc (1431), battle-of-castillon (1453)
 */
interface Context {
  server: TestServer;
  primaryBefore: PrimarySnapshot;
}

interface PrimarySnapshot {
  searches: unknown[];
  timeline: unknown;
  check: unknown;
}

const scenarios = suite<Context>('API scenarios: every paradox kind, safety check, revert');

const PRIMARY_PROBES = [
  { location: 'Rome', time_range: '0001-01-01T00:00:00Z/0400-01-01T00:00:00Z' },
  { location: "Xi'an", time_range: '-000200-01-01T00:00:00Z/0001-01-01T00:00:00Z' },
  { location: 'Japan', time_range: '1850-01-01T00:00:00Z/1900-01-01T00:00:00Z' },
  { location: 'France', time_range: '1400-01-01T00:00:00Z/1500-01-01T00:00:00Z' },
  { location: 'Istanbul', time_range: '0300-01-01T00:00:00Z/0400-01-01T00:00:00Z' },
  { location: 'Vienna', time_range: '1899-01-01T00:00:00Z/1901-01-01T00:00:00Z' },
];

async function snapshotPrimary(server: TestServer): Promise<PrimarySnapshot> {
  const searches = [];
  for (const probe of PRIMARY_PROBES) {
    const found = await ok(call(server, 'GET', '/v1/search-events', { body: { ...probe, page_size: 100 } }));
    searches.push(found.json);
  }
  // A full check stores its verdict on the timeline record: check first, then read the record.
  const check = withoutDuration((await ok(call(server, 'GET', '/v1/check-paradox', { body: { timeline_id: 'primary' } }))).json);
  const timeline = (await ok(call(server, 'GET', '/v1/timeline/primary'))).json;
  return { searches, timeline, check };
}

scenarios.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.primaryBefore = await snapshotPrimary(ctx.server);
});
scenarios.after(async (ctx) => {
  await ctx.server.stop();
});

async function ok(pending: Promise<HttpResult>): Promise<HttpResult> {
  const res = await pending;
  assert.is(res.status, 200, res.text);
  return res;
}

async function branch(server: TestServer, description: string): Promise<string> {
  const created = await ok(call(server, 'POST', '/v1/create-timeline', { body: { base_timeline_id: 'primary', description } }));
  assert.match(created.json.timeline_id, /^tl_/);
  return created.json.timeline_id;
}

async function manipulate(
  server: TestServer,
  timelineId: string,
  eventId: string,
  change: { action: string; time: string },
  safetyCheck = false,
): Promise<HttpResult> {
  return call(server, 'POST', '/v1/manipulate-event', {
    body: {
      event_id: eventId,
      new_outcome: { description: `${eventId}, changed by a test`, changes: [change] },
      safety_check: safetyCheck,
      timeline_id: timelineId,
    },
  });
}

async function manipulated(server: TestServer, timelineId: string, eventId: string, change: { action: string; time: string }): Promise<string> {
  const res = await ok(manipulate(server, timelineId, eventId, change));
  assert.is(res.json.original_event_id, eventId);
  assert.match(res.json.new_event_id, /^evt_/);
  return res.json.new_event_id;
}

async function checkParadox(server: TestServer, timelineId: string) {
  return (await ok(call(server, 'GET', '/v1/check-paradox', { body: { timeline_id: timelineId } }))).json;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a check-paradox response as JSON
function withoutDuration(check: any): unknown {
  assert.type(check.figures.duration_ms, 'number');
  return { ...check, figures: { ...check.figures, duration_ms: 'varies' } };
}

const CATALOGUE_LINKS = 258;

scenarios('the seeded primary timeline is Stable: the baseline every branch starts from', ({ primaryBefore }) => {
  assert.equal(primaryBefore.check, {
    status: 'No paradoxes detected',
    timeline_stability: 'Stable',
    paradoxes: [],
    figures: { events_analysed: 396, links_analysed: CATALOGUE_LINKS, anchors_analysed: 0, duration_ms: 'varies' },
  });
});

scenarios('causality_violation: a cause rescheduled after its effect', async ({ server }) => {
  const timelineId = await branch(server, 'The fire comes late');
  const fire = await manipulated(server, timelineId, 'great-fire-of-rome', { action: 'reschedule', time: '0070-01-01T00:00:00Z' });
  const check = await checkParadox(server, timelineId);
  assert.is(check.status, '1 paradox detected');
  assert.is(check.timeline_stability, 'Critical');
  assert.equal(check.paradoxes, [
    {
      kind: 'causality_violation',
      severity: 'critical',
      event_ids: ['death-of-nero', fire],
      description: `"death-of-nero" happens before its cause "${fire}"`,
    },
  ]);
  assert.is(check.figures.events_analysed, 396);
  const timeline = (await ok(call(server, 'GET', `/v1/timeline/${timelineId}`))).json.timeline;
  assert.is(timeline.stability, 'Critical', 'the check stores its verdict on the timeline record');
  assert.is(timeline.revision, 1);
});

scenarios('causality_violation in year 900 000 000: one second apart is told apart there too', async ({ server }) => {
  // Beyond ±2^53 s a double holds every fourth second only: these four seconds share one double.
  const timelineId = await branch(server, 'A far future fire');
  const nero = await manipulated(server, timelineId, 'death-of-nero', { action: 'reschedule', time: '+900000000-01-01T00:00:01Z' });
  const fire = await manipulated(server, timelineId, 'great-fire-of-rome', { action: 'reschedule', time: '+900000000-01-01T00:00:02Z' });
  const late = await checkParadox(server, timelineId);
  assert.equal(
    late.paradoxes.map((p: { kind: string; event_ids: string[] }) => [p.kind, p.event_ids]),
    [['causality_violation', [nero, fire]]],
  );
  await manipulated(server, timelineId, fire, { action: 'reschedule', time: '+900000000-01-01T00:00:00.999999999Z' });
  const early = await checkParadox(server, timelineId);
  assert.is(early.status, 'No paradoxes detected', 'the cause is a nanosecond before its effect');
});

scenarios('orphaned_effect: a cancelled cause whose effect still happens is a warning (Unstable)', async ({ server }) => {
  const timelineId = await branch(server, 'No Emperor Wu');
  const accession = await manipulated(server, timelineId, 'emperor-wu-of-han-accession', { action: 'cancel', time: '-000140-03-06T12:00:00Z' });
  const check = await checkParadox(server, timelineId);
  assert.is(check.status, '1 paradox detected');
  assert.is(check.timeline_stability, 'Unstable');
  assert.equal(check.paradoxes, [
    {
      kind: 'orphaned_effect',
      severity: 'warning',
      event_ids: ['death-of-emperor-wu-of-han', accession],
      description: `"death-of-emperor-wu-of-han" still happens although its cause "${accession}" was cancelled`,
    },
  ]);
  // The cancelled version stays a node of the graph (the orphan points at it) but no longer happens.
  assert.is(check.figures.events_analysed, 396);
  const search = await ok(call(server, 'GET', '/v1/search-events', { body: { location: "Xi'an", time_range: '-000141-01-01T00:00:00Z/-000139-01-01T00:00:00Z', timeline_id: timelineId } }));
  assert.equal(search.json.events, []);
});

scenarios('orphaned_effect: "prevent" cancels too, and an effect with two cancelled causes is one paradox', async ({ server }) => {
  const timelineId = await branch(server, 'Perry never sails');
  const perry = await manipulated(server, timelineId, 'perry-arrives-in-japan', { action: 'prevent', time: '1853-07-01T00:00:00Z' });
  const check = await checkParadox(server, timelineId);
  assert.is(check.status, '2 paradoxes detected');
  assert.is(check.timeline_stability, 'Unstable');
  assert.equal(
    check.paradoxes.map((p: { kind: string; severity: string; event_ids: string[] }) => [p.kind, p.severity, p.event_ids]),
    [
      ['orphaned_effect', 'warning', ['edo-renamed-tokyo', perry]],
      ['orphaned_effect', 'warning', ['meiji-constitution', perry]],
    ],
  );
});

scenarios('causal_loop cannot be made through the API: no route can add or change a cause link', async ({ server }) => {
  const timelineId = await branch(server, 'Try to close a loop');
  // The only writes are manipulations (which copy the original's causes), reverts, and travel arrivals (no causes).
  const refusedOutcome = await call(server, 'POST', '/v1/manipulate-event', {
    body: {
      event_id: 'death-of-nero',
      new_outcome: { description: 'Nero causes the fire', changes: [], causes: ['death-of-nero'] },
      timeline_id: timelineId,
    },
  });
  assert.is(refusedOutcome.status, 400, refusedOutcome.text);
  assert.is(refusedOutcome.json.code, 'invalid_argument');
  assert.match(refusedOutcome.json.message, /^new_outcome\.causes: unknown field/);
  const refusedTravel = await call(server, 'POST', '/api/v1/travel', {
    body: { destination_time: '0063-01-01T00:00:00Z', location: 'Rome, Italy', causes: ['death-of-nero'], timeline_id: timelineId },
  });
  assert.is(refusedTravel.status, 400, refusedTravel.text);
  assert.is(refusedTravel.json.code, 'invalid_argument');
  assert.match(refusedTravel.json.message, /^causes: unknown field/);

  // Rescheduling the effect before its cause and the cause after it only flips the link's direction in time.
  const nero = await ok(manipulate(server, timelineId, 'death-of-nero', { action: 'reschedule', time: '0060-01-01T00:00:00Z' }));
  assert.equal(nero.json.event.causes, ['great-fire-of-rome'], 'a manipulation keeps the original causes');
  const fire = await manipulated(server, timelineId, 'great-fire-of-rome', { action: 'reschedule', time: '0070-01-01T00:00:00Z' });
  const arrival = await ok(call(server, 'POST', '/api/v1/travel', { body: { destination_time: '0065-01-01T00:00:00Z', location: 'Rome, Italy', timeline_id: timelineId } }));
  assert.equal(arrival.json.arrival.causes, []);
  const check = await checkParadox(server, timelineId);
  assert.equal(
    check.paradoxes.map((p: { kind: string; event_ids: string[] }) => [p.kind, p.event_ids]),
    [['causality_violation', [nero.json.new_event_id, fire]]],
  );
  assert.is(check.figures.links_analysed, CATALOGUE_LINKS, 'no route added a link');
  assert.is(check.figures.events_analysed, 397);
});

scenarios('anchor_breach: an event at or before an anchor changed after the anchor was set, its effect past it', async ({ server }) => {
  const timelineId = await branch(server, 'Anchored antiquity');
  // Changed before any anchor existed: not a breach of an anchor set later.
  const fire = await manipulated(server, timelineId, 'great-fire-of-rome', { action: 'rumour', time: '0064-07-18T00:00:00Z' });
  const early = await ok(call(server, 'POST', '/v1/set-anchor', { body: { timestamp: '0066-01-01T00:00:00Z', description: 'after the fire', timeline_id: timelineId } }));
  const late = await ok(call(server, 'POST', '/v1/set-anchor', { body: { timestamp: '0320-01-01T00:00:00Z', description: 'between the battle and the city', timeline_id: timelineId } }));
  assert.is(late.json.timeline_id, timelineId);
  const stableWithAnchors = await checkParadox(server, timelineId);
  assert.is(stableWithAnchors.timeline_stability, 'Stable');
  assert.is(stableWithAnchors.figures.anchors_analysed, 2);

  // Breach detection compares wall-clock milliseconds: let the clock move past the anchors' creation.
  await sleep(5);
  const battle = await manipulated(server, timelineId, 'battle-of-the-milvian-bridge', { action: 'bless', time: '0312-10-28T00:00:00Z' });
  const check = await checkParadox(server, timelineId);
  assert.is(check.status, '1 paradox detected');
  assert.is(check.timeline_stability, 'Critical');
  assert.equal(check.paradoxes, [
    {
      kind: 'anchor_breach',
      severity: 'critical',
      event_ids: [battle, 'dedication-of-constantinople'],
      description: `"${battle}" was changed after anchor ${JSON.stringify(late.json.anchor_id)} was set, at or before the instant it pins, and its effect "dedication-of-constantinople" comes after that instant`,
      anchor_id: late.json.anchor_id,
    },
  ]);
  assert.not.equal(early.json.anchor_id, late.json.anchor_id);
  assert.ok(!check.paradoxes.some((p: { event_ids: string[] }) => p.event_ids.includes(fire)));
});

scenarios('anchors on a timeline none of whose events was changed are counted as analysed; a change weighs them', async ({ server }) => {
  const timelineId = await branch(server, 'Anchored, untouched');
  for (const timestamp of ['0066-01-01T00:00:00Z', '0320-01-01T00:00:00Z', '1066-10-14T00:00:00Z']) {
    await ok(call(server, 'POST', '/v1/set-anchor', { body: { timestamp, description: 'pinned', timeline_id: timelineId } }));
  }
  const untouched = await checkParadox(server, timelineId);
  assert.is(untouched.figures.anchors_analysed, 3);
  assert.is(untouched.timeline_stability, 'Stable');
  await sleep(5);
  const battle = await manipulated(server, timelineId, 'battle-of-the-milvian-bridge', { action: 'bless', time: '0312-10-28T00:00:00Z' });
  const changed = await checkParadox(server, timelineId);
  assert.is(changed.figures.anchors_analysed, 3);
  assert.equal(
    changed.paradoxes.map((p: { kind: string; event_ids: string[] }) => [p.kind, p.event_ids]),
    [['anchor_breach', [battle, 'dedication-of-constantinople']]],
  );
});

scenarios('self_encounter: two travel arrivals of one traveller at one place less than an hour apart', async ({ server }) => {
  const timelineId = await branch(server, 'Vienna, New Year 1900');
  const travel = async (destination_time: string, location: string, traveller?: string): Promise<string> => {
    const res = await ok(call(server, 'POST', '/api/v1/travel', { body: { destination_time, location, timeline_id: timelineId, ...(traveller ? { traveller } : {}) } }));
    assert.is(res.json.arrival.time, destination_time);
    return res.json.arrival.event_id;
  };
  const first = await travel('1900-01-01T00:00:00Z', 'Vienna, Austria');
  const second = await travel('1900-01-01T00:30:00Z', 'VIENNA austria');
  await travel('1900-01-01T01:30:00Z', 'Vienna, Austria'); // arrives exactly as the second stay ends
  await travel('1900-01-01T00:15:00Z', 'Vienna, Austria', 'grace'); // someone else
  await travel('1900-01-01T00:10:00Z', 'Graz, Austria'); // elsewhere
  const check = await checkParadox(server, timelineId);
  assert.is(check.status, '1 paradox detected');
  assert.is(check.timeline_stability, 'Critical');
  assert.equal(check.paradoxes, [
    {
      kind: 'self_encounter',
      severity: 'critical',
      event_ids: [first, second],
      description: `"${first}" and "${second}" are arrivals of the same traveller at the same place less than an hour apart: their stays overlap`,
    },
  ]);
  assert.is(check.figures.events_analysed, 401);
});

scenarios('monitor-paradox lists only paradoxes that involve an event inside time_range', async ({ server }) => {
  const timelineId = await branch(server, 'Three troubles');
  const accession = await manipulated(server, timelineId, 'emperor-wu-of-han-accession', { action: 'cancel', time: '-000140-03-06T12:00:00Z' });
  const fire = await manipulated(server, timelineId, 'great-fire-of-rome', { action: 'reschedule', time: '0070-01-01T00:00:00Z' });
  const whole = await checkParadox(server, timelineId);
  assert.is(whole.status, '2 paradoxes detected');
  assert.is(whole.timeline_stability, 'Critical');

  const monitor = async (time_range: string) =>
    (await ok(call(server, 'GET', '/api/v1/monitor-paradox', { body: { timeline_id: timelineId, time_range } }))).json;
  const kindsAndEvents = (check: { paradoxes: { kind: string; event_ids: string[] }[] }) => check.paradoxes.map((p) => [p.kind, p.event_ids]);

  const han = await monitor('-000200-01-01T00:00:00Z/-000001-01-01T00:00:00Z');
  assert.is(han.status, '1 paradox detected');
  assert.is(han.timeline_stability, 'Unstable');
  assert.equal(kindsAndEvents(han), [['orphaned_effect', ['death-of-emperor-wu-of-han', accession]]]);

  const rome = await monitor('0060-01-01T00:00:00Z/0100-01-01T00:00:00Z');
  assert.is(rome.status, '1 paradox detected');
  assert.is(rome.timeline_stability, 'Critical');
  assert.equal(kindsAndEvents(rome), [['causality_violation', ['death-of-nero', fire]]]);

  // One end of the broken link inside the range is enough (only the rescheduled fire, in 0070, is in it).
  const fireOnly = await monitor('0069-01-01T00:00:00Z/P2Y');
  assert.equal(kindsAndEvents(fireOnly), [['causality_violation', ['death-of-nero', fire]]]);

  const quiet = await monitor('1000-01-01T00:00:00Z/1800-01-01T00:00:00Z');
  assert.is(quiet.status, 'No paradoxes detected');
  assert.is(quiet.timeline_stability, 'Stable');
  assert.equal(quiet.paradoxes, []);

  const both = await monitor('-000200-01-01T00:00:00Z/0100-01-01T00:00:00Z');
  assert.equal(kindsAndEvents(both), kindsAndEvents(whole));

  const timeline = (await ok(call(server, 'GET', `/v1/timeline/${timelineId}`))).json.timeline;
  assert.is(timeline.stability, 'Critical', 'a windowed check does not overwrite the whole-timeline verdict');
});

/** What a safety check must leave untouched, read through REST. */
async function restState(server: TestServer, timelineId: string) {
  const check = withoutDuration(await checkParadox(server, timelineId));
  const timeline = (await ok(call(server, 'GET', `/v1/timeline/${timelineId}`))).json;
  const japan = (await ok(call(server, 'GET', '/v1/search-events', { body: { location: 'Japan', time_range: '1850-01-01T00:00:00Z/1900-01-01T00:00:00Z', timeline_id: timelineId } }))).json;
  const late = (await ok(call(server, 'GET', '/v1/search-events', { body: { time_range: '1889-01-01T00:00:00Z/1891-01-01T00:00:00Z', timeline_id: timelineId, page_size: 100 } }))).json;
  const perry = (await ok(call(server, 'GET', '/api/v1/check-timeline', { body: { timeline_id: timelineId, significant_event: 'perry-arrives-in-japan' } }))).json;
  return { check, timeline, japan, late, perry };
}

scenarios('safety_check refuses a change that adds paradoxes, names each one, and writes nothing (REST)', async ({ server }) => {
  const timelineId = await branch(server, 'Perry arrives too late');
  // An existing warning elsewhere: the safety check lists only what the change would add.
  await manipulated(server, timelineId, 'emperor-wu-of-han-accession', { action: 'cancel', time: '-000140-03-06T12:00:00Z' });
  const before = await restState(server, timelineId);
  assert.is((before.check as { timeline_stability: string }).timeline_stability, 'Unstable');
  assert.is(before.perry.state, 'intact');
  assert.equal(before.japan.events.map((e: { event_id: string }) => e.event_id), ['perry-arrives-in-japan', 'edo-renamed-tokyo', 'meiji-constitution']);

  const refused = await manipulate(server, timelineId, 'perry-arrives-in-japan', { action: 'reschedule', time: '1890-01-01T00:00:00Z' }, true);
  assert.is(refused.status, 400, refused.text);
  assert.is(refused.json.code, 'failed_precondition');
  // The change's new event was never written: each paradox names the event the caller asked to change.
  assert.is(
    refused.json.message,
    'safety check failed: manipulating "perry-arrives-in-japan" would cause 2 paradoxes: causality_violation (edo-renamed-tokyo, perry-arrives-in-japan); causality_violation (meiji-constitution, perry-arrives-in-japan); nothing was written',
  );
  assert.equal(
    refused.json.details.map((d: { type: string; debug: { kind: string; severity: string; event_ids: string[] } }) => [d.type, d.debug.kind, d.debug.severity, d.debug.event_ids]),
    [
      ['tms.v1.Paradox', 'causality_violation', 'critical', ['edo-renamed-tokyo', 'perry-arrives-in-japan']],
      ['tms.v1.Paradox', 'causality_violation', 'critical', ['meiji-constitution', 'perry-arrives-in-japan']],
    ],
  );
  for (const detail of refused.json.details as { debug: { description: string } }[]) {
    assert.match(detail.debug.description, /"perry-arrives-in-japan" as changed/);
    assert.not.match(detail.debug.description, /evt_/);
  }

  const after = await restState(server, timelineId);
  assert.equal(after, before);
  assert.is(after.timeline.timeline.revision, 1, 'only the earlier cancellation was written');
  assert.not.ok(after.late.events.some((e: { supersedes?: string }) => e.supersedes === 'perry-arrives-in-japan'), 'no rescheduled Perry in 1890');

  // The same change without the safety check is written, and the timeline turns Critical.
  const applied = await ok(manipulate(server, timelineId, 'perry-arrives-in-japan', { action: 'reschedule', time: '1890-01-01T00:00:00Z' }));
  const written = (await restState(server, timelineId)).late.events.filter((e: { supersedes?: string }) => e.supersedes === 'perry-arrives-in-japan');
  assert.equal(written.map((e: { event_id: string }) => e.event_id), [applied.json.new_event_id], 'now the rescheduled Perry is in 1890');
  const check = await checkParadox(server, timelineId);
  assert.is(check.timeline_stability, 'Critical');
  assert.is(check.status, '3 paradoxes detected');
  assert.ok(check.paradoxes.some((p: { event_ids: string[] }) => p.event_ids.includes(applied.json.new_event_id)));
});

scenarios('safety_check lets a harmless change through, and refuses a warning-only one', async ({ server }) => {
  const timelineId = await branch(server, 'Gentle changes');
  const harmless = await ok(manipulate(server, timelineId, 'death-of-nero', { action: 'reschedule', time: '0068-06-08T12:00:00Z' }, true));
  assert.is(harmless.json.time, '0068-06-08T12:00:00Z');
  const orphaning = await manipulate(server, timelineId, 'great-fire-of-rome', { action: 'cancel', time: '0064-07-17T12:00:00Z' }, true);
  assert.is(orphaning.status, 400, orphaning.text);
  assert.is(orphaning.json.code, 'failed_precondition');
  assert.match(orphaning.json.message, new RegExp(`would cause 1 paradox: orphaned_effect \\(${harmless.json.new_event_id}, great-fire-of-rome\\); nothing was written$`));
  const check = await checkParadox(server, timelineId);
  assert.is(check.timeline_stability, 'Stable');
});

scenarios('safety_check also refuses an anchor breach and a rescheduled arrival that meets its traveller', async ({ server }) => {
  const timelineId = await branch(server, 'Guarded');
  const anchor = await ok(call(server, 'POST', '/v1/set-anchor', { body: { timestamp: '0320-01-01T00:00:00Z', description: 'guard', timeline_id: timelineId } }));
  await sleep(5);
  const breach = await manipulate(server, timelineId, 'battle-of-the-milvian-bridge', { action: 'bless', time: '0312-10-28T00:00:00Z' }, true);
  assert.is(breach.status, 400, breach.text);
  assert.is(breach.json.code, 'failed_precondition');
  assert.match(breach.json.message, /would cause 1 paradox: anchor_breach \(battle-of-the-milvian-bridge, dedication-of-constantinople\); nothing was written$/);
  assert.is(breach.json.details[0].debug.anchor_id, anchor.json.anchor_id);

  const arrive = async (destination_time: string) =>
    (await ok(call(server, 'POST', '/api/v1/travel', { body: { destination_time, location: 'Vienna, Austria', timeline_id: timelineId } }))).json.arrival.event_id;
  const first = await arrive('1900-01-01T00:00:00Z');
  const second = await arrive('1900-01-01T05:00:00Z');
  const encounter = await call(server, 'POST', '/api/v1/manipulate-event', {
    body: { event_id: second, action: 'reschedule', time: '1900-01-01T00:20:00Z', safety_check: true, timeline_id: timelineId },
  });
  assert.is(encounter.status, 400, encounter.text);
  assert.is(encounter.json.code, 'failed_precondition');
  assert.match(encounter.json.message, new RegExp(`would cause 1 paradox: self_encounter \\(${first}, ${second}\\); nothing was written$`));

  const check = await checkParadox(server, timelineId);
  assert.is(check.status, 'No paradoxes detected');
  assert.is((await ok(call(server, 'GET', `/v1/timeline/${timelineId}`))).json.timeline.revision, 2, 'only the two arrivals were written');
});

scenarios('safety_check through gRPC: failed_precondition naming each paradox, nothing written', async ({ server }) => {
  const timelineId = await branch(server, 'Orleans is not relieved');
  const state = async () => {
    const search = await grpcCall(server.port, 'tms.v1.EventService.SearchEvents', { location: 'France', time_range: '1400-01-01T00:00:00Z/1500-01-01T00:00:00Z', timeline_id: timelineId });
    const check = await grpcCall(server.port, 'tms.v1.ParadoxService.CheckParadox', { timeline_id: timelineId });
    const timeline = await grpcCall(server.port, 'tms.v1.TimelineService.GetTimeline', { timeline_id: timelineId });
    for (const result of [search, timeline, check]) assert.is(result.codeName, 'ok', result.message);
    return { search: search.json, timeline: timeline.json, check: withoutDuration(check.json) };
  };
  const before = await state();
  assert.ok(before.search.events.some((e: { event_id: string }) => e.event_id === 'relief-of-orleans'));

  const refused = await grpcCall(server.port, 'tms.v1.EventService.ManipulateEvent', {
    event_id: 'relief-of-orleans',
    new_outcome: { description: 'The siege holds', changes: [{ action: 'prevent', time: '1429-05-08T00:00:00Z' }] },
    safety_check: true,
    timeline_id: timelineId,
  });
  assert.is(refused.codeName, 'failed_precondition');
  assert.is(refused.code, 9);
  assert.match(
    refused.message,
    /orphaned_effect \(execution-of-joan-of-arc, relief-of-orleans\); orphaned_effect \(battle-of-castillon, relief-of-orleans\); nothing was written$/,
  );
  assert.match(refused.message, /^safety check failed: manipulating "relief-of-orleans" would cause 2 paradoxes: /);

  const after = await state();
  assert.equal(after, before);
  assert.is(after.timeline.timeline.stability, 'Stable');
  // proto3 JSON leaves a zero revision out; REST shows it.
  assert.is((await ok(call(server, 'GET', `/v1/timeline/${timelineId}`))).json.timeline.revision, 0);
});

scenarios('a manipulation that creates a paradox, then revert-event: back to Stable', async ({ server }) => {
  const timelineId = await branch(server, 'Undo the late arrival');
  const perry = await manipulated(server, timelineId, 'perry-arrives-in-japan', { action: 'reschedule', time: '1890-01-01T00:00:00Z' });
  const broken = await checkParadox(server, timelineId);
  assert.is(broken.timeline_stability, 'Critical');
  assert.is(broken.status, '2 paradoxes detected');

  const reverted = await ok(call(server, 'POST', '/v1/revert-event', { body: { event_id: perry, timeline_id: timelineId } }));
  assert.is(reverted.json.original_event_id, 'perry-arrives-in-japan');
  assert.is(reverted.json.timeline_id, timelineId);
  const check = await checkParadox(server, timelineId);
  assert.is(check.status, 'No paradoxes detected');
  assert.is(check.timeline_stability, 'Stable');
  assert.equal(check.paradoxes, []);
  const timeline = (await ok(call(server, 'GET', `/v1/timeline/${timelineId}`))).json.timeline;
  assert.is(timeline.stability, 'Stable');
  assert.is(timeline.revision, 2);
  assert.is(timeline.event_count, 396);
  const intact = await ok(call(server, 'GET', '/api/v1/check-timeline', { body: { timeline_id: timelineId, significant_event: 'perry-arrives-in-japan' } }));
  assert.is(intact.json.state, 'intact');

  const again = await call(server, 'POST', '/v1/revert-event', { body: { event_id: perry, timeline_id: timelineId } });
  assert.is(again.status, 400, again.text);
  assert.is(again.json.code, 'failed_precondition');
});

scenarios('a cancellation through the flat tutorial route, then revert: back to Stable', async ({ server }) => {
  const timelineId = await branch(server, 'Flat form');
  const flat = await ok(call(server, 'POST', '/api/v1/manipulate-event', { body: { event_id: 'great-fire-of-rome', action: 'cancel', time: '0064-07-17T12:00:00Z', timeline_id: timelineId } }));
  const orphaned = await checkParadox(server, timelineId);
  assert.is(orphaned.timeline_stability, 'Unstable');
  assert.equal(orphaned.paradoxes.map((p: { event_ids: string[] }) => p.event_ids), [['death-of-nero', flat.json.new_event_id]]);
  await ok(call(server, 'POST', '/v1/revert-event', { body: { event_id: flat.json.new_event_id, timeline_id: timelineId } }));
  const check = await checkParadox(server, timelineId);
  assert.is(check.timeline_stability, 'Stable');
  assert.is(check.status, 'No paradoxes detected');
});

scenarios('primary is untouched by everything done on branches', async ({ server, primaryBefore }) => {
  const after = await snapshotPrimary(server);
  assert.equal(after, primaryBefore);
  assert.is((after.timeline as { timeline: { revision: number } }).timeline.revision, 0);
  const listed = (await ok(call(server, 'GET', '/v1/timelines', { body: { page_size: 100 } }))).json.timelines;
  assert.ok(listed.length > 10, 'the scenarios above worked on their own branches');
  assert.ok(listed.slice(1).every((t: { base_timeline_id: string; kind: string }) => t.base_timeline_id === 'primary' && t.kind === 'alternate'));
});

scenarios.run();
