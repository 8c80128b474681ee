// Issue 5's authorization matrix: every REST route and every RPC, called over REST and over gRPC with
// each kind of credential, must answer exactly the status and error code in its row. The tables are
// checked against routes.ts and rpcMethods, so a route or RPC added without a row fails this file.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { create } from '@bufbuild/protobuf';
import { restRoutes, type RestRoute } from '../../src/server/rest/routes.ts';
import { rpcMethods } from '../../src/server/connect/services.ts';
import {
  Health,
  HealthCheckRequestSchema,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus,
} from '../../src/gen/grpc/health/v1/health_pb.ts';
import { ADMIN_KEY, call, type TestServer } from '../support/server.ts';
import { authorizedBy, grpcCall, unary } from '../support/grpc.ts';
import {
  UNISSUED_KEY,
  createKey,
  expectOk,
  login,
  logout,
  revokeKey,
  sleep,
  startSeededServer,
  type SeedAccount,
} from '../support/accounts.ts';

// ------------------------------------------------------------------ credentials and expectations

const KINDS = [
  'none',
  'bad_key',
  'revoked_key',
  'logged_out_token',
  'expired_key',
  'read_key',
  'other_write_key',
  'owner',
  'owner_session',
  'admin',
] as const;
type Kind = (typeof KINDS)[number];
/** These never get past authentication. */
const REFUSED: readonly Kind[] = ['none', 'bad_key', 'revoked_key', 'logged_out_token', 'expired_key'];

type Code = 'ok' | 'unauthenticated' | 'permission_denied' | 'not_found' | 'failed_precondition' | 'unimplemented';
/** Written out here, not imported from the server: the test states what each code must be on the wire. */
const HTTP_STATUS: Record<Code, number> = {
  ok: 200,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  failed_precondition: 400,
  unimplemented: 501,
};

/**
 * What the authenticated kinds get. `read`: a read-only key of the owner's account. `other`: a write key
 * of another (non-admin) account. `owner`: the write key that created the fixtures. `session`: the owner
 * logged in (defaults to `owner`). `admin`: ADMIN_KEY.
 */
interface Access {
  read: Code;
  other: Code;
  owner: Code;
  admin: Code;
  session?: Code;
}

const OWNED_READ: Access = { read: 'ok', other: 'not_found', owner: 'ok', admin: 'ok' };
const OWNED_WRITE: Access = { read: 'permission_denied', other: 'not_found', owner: 'ok', admin: 'ok' };
const ANY_ACCOUNT: Access = { read: 'ok', other: 'ok', owner: 'ok', admin: 'ok' };
const WRITERS: Access = { read: 'permission_denied', other: 'ok', owner: 'ok', admin: 'ok' };
const ADMIN_ONLY: Access = { read: 'permission_denied', other: 'permission_denied', owner: 'permission_denied', admin: 'ok' };
const KEY_MAKERS: Access = { read: 'permission_denied', other: 'permission_denied', owner: 'permission_denied', session: 'ok', admin: 'ok' };
const PERSONAL: Access = { read: 'ok', other: 'not_found', owner: 'ok', admin: 'not_found' };

function expected(access: Access | 'public', kind: Kind): Code {
  if (access === 'public') return 'ok';
  switch (kind) {
    case 'read_key':
      return access.read;
    case 'other_write_key':
      return access.other;
    case 'owner':
      return access.owner;
    case 'owner_session':
      return access.session ?? access.owner;
    case 'admin':
      return access.admin;
    default:
      return 'unauthenticated';
  }
}

// ------------------------------------------------------------------ fixtures

const OWNER: SeedAccount = { username: 'owner', password: 'owner-password-4711', scopes: ['read', 'write'] };
const OTHER: SeedAccount = { username: 'other', password: 'other-password-4712', scopes: ['read', 'write'] };
const VICTIMS: SeedAccount[] = Array.from({ length: 24 }, (_, i) => ({
  username: `victim-${String(i).padStart(2, '0')}`,
  password: `victim-password-${i}`,
  scopes: ['read'],
}));

interface PrimaryEvent {
  event_id: string;
  time: string;
}

interface Env {
  server: TestServer;
  keys: Record<Exclude<Kind, 'none' | 'owner_session' | 'admin'>, string>;
  /** The owner's alternate timeline and an anchor on it, both created with the owner's write key. */
  timeline: string;
  anchor: string;
  /** An anchor on primary, set by admin: read by whoever may read primary, changed by admin only. */
  primaryAnchor: string;
  /** Primary events nobody has changed yet: each admin manipulation of primary takes a new one. */
  primaryEvents: PrimaryEvent[];
  victims: SeedAccount[];
  serial: number;
}

const PARIS_1790S = { location: 'Paris', time_range: '1789-01-01T00:00:00Z/1799-12-31T23:59:59Z' };
const ANCHOR = {
  timestamp: '2025-01-01T00:00:00.000001Z',
  description: 'matrix anchor',
  accuracy: 'nanosecond',
  environment: { temperature: '22°C', humidity: '45%', em_field_strength: '0.5T' },
  quantum_state: { qubit_configuration: '1010', superposition_stability: '99.9%' },
};

async function asOwner(env: Env, method: string, path: string, body?: Record<string, unknown>) {
  const options = body === undefined ? { key: env.keys.owner } : { key: env.keys.owner, body };
  return expectOk(`${method} ${path} as owner`, await call(env.server, method, path, options)).json;
}

/** A request saved by the owner account (and shared, when asked). */
async function ownerSaved(env: Env, shared = false): Promise<{ id: string; share_token: string }> {
  const saved = await asOwner(env, 'POST', '/v1/console/requests', { name: unique(env, 'fixture'), method: 'GET', path: '/v1/timelines' });
  if (!shared) return saved.saved_request;
  return (await asOwner(env, 'POST', `/v1/console/requests/${saved.saved_request.id}/share`)).saved_request;
}

async function freshOwnerTimeline(env: Env): Promise<string> {
  const created = await asOwner(env, 'POST', '/v1/create-timeline', { base_timeline_id: 'primary', description: 'matrix, fresh' });
  return created.timeline_id as string;
}

function nextPrimaryEvent(env: Env): PrimaryEvent {
  const event = env.primaryEvents.shift();
  if (!event) throw new Error('the matrix ran out of unchanged primary events');
  return event;
}

const unique = (env: Env, prefix: string): string => `${prefix}-${++env.serial}`;

async function bearer(env: Env, kind: Kind): Promise<string | null> {
  switch (kind) {
    case 'none':
      return null;
    case 'admin':
      return ADMIN_KEY;
    case 'owner_session':
      // A session of its own for every call: logout ends one.
      return (await login(env.server, OWNER.username, OWNER.password)).token;
    default:
      return env.keys[kind];
  }
}

// ------------------------------------------------------------------ the rows

type Fields = Record<string, unknown>;

interface Case {
  label: string;
  access: Access | 'public';
  /** A valid request for this call; cases that change what they touch make fresh records each time. */
  request(env: Env): Fields | Promise<Fields>;
  /** REST: the one route path that serves this case (an RPC with two routes takes different fields on each). */
  restPath?: string;
}

const onTimeline = (label: string, access: Access, build: (timeline: string) => Fields): Case => ({
  label,
  access,
  request: (env) => build(env.timeline),
});
const onFreshTimeline = (label: string, access: Access, build: (timeline: string) => Fields): Case => ({
  label,
  access,
  request: async (env) => build(await freshOwnerTimeline(env)),
});

const manipulateOnPrimary: Case = {
  label: 'an event of primary',
  access: ADMIN_ONLY,
  request: (env) => {
    const event = nextPrimaryEvent(env);
    return { event_id: event.event_id, new_outcome: { description: 'changed by the matrix', changes: [{ action: 'observe', time: event.time }] } };
  },
};

const createTimelineCases = (extra: Fields): Case[] => [
  onTimeline('based on the owner timeline', OWNED_WRITE, (timeline) => ({ base_timeline_id: timeline, description: 'branch', ...extra })),
  { label: 'based on primary', access: WRITERS, request: () => ({ base_timeline_id: 'primary', description: 'branch', ...extra }) },
];

/** Every RPC, by name: the cases to call it with and the expected code per credential kind. */
const RPC_ROWS: Record<string, Case[]> = {
  'tms.v1.EventService.SearchEvents': [
    onTimeline('the owner timeline', OWNED_READ, (timeline) => ({ timeline_id: timeline, ...PARIS_1790S })),
    { label: 'primary', access: ANY_ACCOUNT, request: () => ({ ...PARIS_1790S }) },
  ],
  'tms.v1.EventService.ManipulateEvent': [
    onFreshTimeline('an owner timeline', OWNED_WRITE, (timeline) => ({
      timeline_id: timeline,
      event_id: 'storming-of-the-bastille',
      new_outcome: { description: 'A negotiated surrender.', changes: [{ action: 'negotiate', time: '1789-07-14T10:00:00Z' }] },
    })),
    manipulateOnPrimary,
  ],
  'tms.v1.EventService.RevertEvent': [
    {
      label: 'a manipulation on an owner timeline',
      access: OWNED_WRITE,
      request: async (env) => {
        const timeline = await freshOwnerTimeline(env);
        const changed = await asOwner(env, 'POST', '/v1/manipulate-event', {
          timeline_id: timeline,
          event_id: 'storming-of-the-bastille',
          new_outcome: { description: 'to be reverted', changes: [] },
        });
        return { timeline_id: timeline, event_id: changed.new_event_id };
      },
    },
  ],
  'tms.v1.TimelineService.CreateTimeline': createTimelineCases({}),
  'tms.v1.TimelineService.CreateParallelTimeline': createTimelineCases({ variation: 'No printing press' }),
  'tms.v1.TimelineService.InsertTimeline': createTimelineCases({}),
  'tms.v1.TimelineService.ListTimelines': [{ label: 'all visible', access: ANY_ACCOUNT, request: () => ({}) }],
  'tms.v1.TimelineService.GetTimeline': [
    onTimeline('the owner timeline', OWNED_READ, (timeline) => ({ timeline_id: timeline })),
    { label: 'primary', access: ANY_ACCOUNT, request: () => ({ timeline_id: 'primary' }) },
  ],
  'tms.v1.TimelineService.DeleteTimeline': [
    onFreshTimeline('an owner timeline', OWNED_WRITE, (timeline) => ({ timeline_id: timeline })),
    {
      label: 'primary',
      access: { read: 'permission_denied', other: 'failed_precondition', owner: 'failed_precondition', admin: 'failed_precondition' },
      request: () => ({ timeline_id: 'primary' }),
    },
  ],
  'tms.v1.ParadoxService.CheckParadox': [onTimeline('the owner timeline', OWNED_READ, (timeline) => ({ timeline_id: timeline }))],
  'tms.v1.AnchorService.SetAnchor': [
    onTimeline('on the owner timeline', OWNED_WRITE, (timeline) => ({ ...ANCHOR, timeline_id: timeline })),
    { label: 'on primary', access: ADMIN_ONLY, request: () => ({ ...ANCHOR }) },
  ],
  'tms.v1.AnchorService.CheckAnchorStability': [
    { label: 'the owner anchor', access: OWNED_READ, request: (env) => ({ anchor_id: env.anchor }) },
    { label: 'an anchor on primary', access: ANY_ACCOUNT, request: (env) => ({ anchor_id: env.primaryAnchor }) },
  ],
  'tms.v1.AnchorService.AdjustAnchor': [
    {
      label: 'the owner anchor',
      access: OWNED_WRITE,
      request: (env) => ({ anchor_id: env.anchor, new_environment: { temperature: '20°C', humidity: '40%', em_field_strength: '0.3T' } }),
    },
    {
      label: 'an anchor on primary',
      access: ADMIN_ONLY,
      request: (env) => ({ anchor_id: env.primaryAnchor, new_environment: { temperature: '21°C', humidity: '40%', em_field_strength: '0.3T' } }),
    },
  ],
  'tms.v1.TutorialService.Travel': [
    onTimeline('to the owner timeline', OWNED_WRITE, (timeline) => ({
      timeline_id: timeline,
      destination_time: '1969-07-20T20:17:40Z',
      location: 'Houston, United States',
    })),
  ],
  'tms.v1.TutorialService.ScanEvents': [onTimeline('the owner timeline', OWNED_READ, (timeline) => ({ timeline_id: timeline, ...PARIS_1790S }))],
  'tms.v1.TutorialService.ManipulateEvent': [
    onFreshTimeline('an owner timeline', OWNED_WRITE, (timeline) => ({
      timeline_id: timeline,
      event_id: 'storming-of-the-bastille',
      action: 'reschedule',
      time: '1789-07-15T10:00:00Z',
    })),
    {
      label: 'an event of primary',
      access: ADMIN_ONLY,
      request: (env) => {
        const event = nextPrimaryEvent(env);
        return { event_id: event.event_id, action: 'observe', time: event.time };
      },
    },
  ],
  'tms.v1.TutorialService.MonitorParadox': [
    onTimeline('the owner timeline', OWNED_READ, (timeline) => ({ timeline_id: timeline, time_range: '1900-01-01T00:00:00Z/2000-01-01T00:00:00Z' })),
  ],
  'tms.v1.TutorialService.CheckTimeline': [
    onTimeline('the owner timeline', OWNED_READ, (timeline) => ({ timeline_id: timeline, significant_event: 'moon-landing' })),
  ],
  'tms.v1.AccountService.Login': [
    { label: 'good password', access: 'public', request: () => ({ username: OWNER.username, password: OWNER.password }) },
  ],
  'tms.v1.AccountService.Logout': [
    {
      label: 'the bearer',
      // Logout ends a login session; an API key is revoked instead.
      access: {
        read: 'failed_precondition',
        other: 'failed_precondition',
        owner: 'failed_precondition',
        admin: 'failed_precondition',
        session: 'ok',
      },
      request: () => ({}),
    },
  ],
  'tms.v1.AccountService.CreateAccount': [
    { label: 'a new account', access: ADMIN_ONLY, request: (env) => ({ username: unique(env, 'made'), password: 'made-by-the-matrix', scopes: ['read'] }) },
  ],
  'tms.v1.AccountService.ListAccounts': [{ label: 'all', access: ADMIN_ONLY, request: () => ({}) }],
  'tms.v1.AccountService.DeleteAccount': [
    {
      label: 'a disposable account',
      access: ADMIN_ONLY,
      request: (env) => {
        const victim = env.victims.shift();
        if (!victim) throw new Error('the matrix ran out of disposable accounts');
        return { username: victim.username };
      },
    },
  ],
  // Keys are made by a login session or an admin key: an API key without admin cannot mint another.
  'tms.v1.AccountService.CreateKey': [
    { label: 'read scope', access: KEY_MAKERS, request: (env) => ({ name: unique(env, 'key'), scopes: ['read'] }) },
    { label: 'write scope', access: KEY_MAKERS, request: (env) => ({ name: unique(env, 'key'), scopes: ['write'] }) },
  ],
  'tms.v1.AccountService.ListKeys': [{ label: "the caller's", access: ANY_ACCOUNT, request: () => ({}) }],
  'tms.v1.AccountService.RevokeKey': [
    {
      label: 'another key of the owner account',
      // A key without admin revokes only itself (test/api/accounts-http.test.ts); another account finds nothing.
      access: { read: 'permission_denied', other: 'not_found', owner: 'permission_denied', session: 'ok', admin: 'ok' },
      request: async (env) => {
        const session = (await login(env.server, OWNER.username, OWNER.password)).token;
        return { key_id: (await createKey(env.server, session, { name: unique(env, 'doomed'), scopes: ['read'] })).key_id };
      },
    },
  ],
  // Saved requests are personal: the owner account's credentials (its read key too) reach them; anyone else,
  // admins included, finds nothing. A share token opens one for any account.
  'tms.v1.ConsoleService.SaveRequest': [{ label: "to the caller's account", access: ANY_ACCOUNT, request: (env) => ({ name: unique(env, 'saved'), method: 'GET', path: '/v1/timelines' }) }],
  'tms.v1.ConsoleService.ListSavedRequests': [{ label: "the caller's", access: ANY_ACCOUNT, request: () => ({}) }],
  'tms.v1.ConsoleService.GetSavedRequest': [
    { label: "the owner's, by id", access: PERSONAL, restPath: '/v1/console/requests/{id}', request: async (env) => ({ id: (await ownerSaved(env)).id }) },
    {
      label: 'a shared one, by token',
      access: ANY_ACCOUNT,
      restPath: '/v1/console/shared/{share_token}',
      request: async (env) => ({ share_token: (await ownerSaved(env, true)).share_token }),
    },
  ],
  'tms.v1.ConsoleService.DeleteSavedRequest': [{ label: "the owner's", access: PERSONAL, request: async (env) => ({ id: (await ownerSaved(env)).id }) }],
  'tms.v1.ConsoleService.ShareSavedRequest': [{ label: "the owner's", access: PERSONAL, request: async (env) => ({ id: (await ownerSaved(env)).id }) }],
  'tms.v1.ConsoleService.UnshareSavedRequest': [{ label: "the owner's", access: PERSONAL, request: async (env) => ({ id: (await ownerSaved(env, true)).id }) }],
};

/** Every REST route, `METHOD path` → the RPC it must name. */
const REST_ROWS: Record<string, string> = {
  'GET /v1/search-events': 'tms.v1.EventService.SearchEvents',
  'POST /v1/manipulate-event': 'tms.v1.EventService.ManipulateEvent',
  'POST /v1/revert-event': 'tms.v1.EventService.RevertEvent',
  'POST /v1/create-timeline': 'tms.v1.TimelineService.CreateTimeline',
  'POST /v1/create-parallel-timeline': 'tms.v1.TimelineService.CreateParallelTimeline',
  'GET /v1/check-paradox': 'tms.v1.ParadoxService.CheckParadox',
  'POST /v1/set-anchor': 'tms.v1.AnchorService.SetAnchor',
  'GET /v1/check-anchor-stability': 'tms.v1.AnchorService.CheckAnchorStability',
  'POST /v1/adjust-anchor': 'tms.v1.AnchorService.AdjustAnchor',
  'POST /api/v1/travel': 'tms.v1.TutorialService.Travel',
  'POST /api/v1/scan-events': 'tms.v1.TutorialService.ScanEvents',
  'POST /api/v1/manipulate-event': 'tms.v1.TutorialService.ManipulateEvent',
  'GET /api/v1/monitor-paradox': 'tms.v1.TutorialService.MonitorParadox',
  'GET /api/v1/check-timeline': 'tms.v1.TutorialService.CheckTimeline',
  'POST /v1/login': 'tms.v1.AccountService.Login',
  'POST /v1/logout': 'tms.v1.AccountService.Logout',
  'POST /v1/accounts': 'tms.v1.AccountService.CreateAccount',
  'GET /v1/accounts': 'tms.v1.AccountService.ListAccounts',
  'DELETE /v1/accounts/{username}': 'tms.v1.AccountService.DeleteAccount',
  'POST /v1/keys': 'tms.v1.AccountService.CreateKey',
  'GET /v1/keys': 'tms.v1.AccountService.ListKeys',
  'DELETE /v1/keys/{key_id}': 'tms.v1.AccountService.RevokeKey',
  'GET /timelines': 'tms.v1.TimelineService.ListTimelines',
  'POST /timelines': 'tms.v1.TimelineService.InsertTimeline',
  'GET /timeline/{timeline_id}': 'tms.v1.TimelineService.GetTimeline',
  'DELETE /timeline/{timeline_id}': 'tms.v1.TimelineService.DeleteTimeline',
  'POST /v1/console/requests': 'tms.v1.ConsoleService.SaveRequest',
  'GET /v1/console/requests': 'tms.v1.ConsoleService.ListSavedRequests',
  'GET /v1/console/requests/{id}': 'tms.v1.ConsoleService.GetSavedRequest',
  'POST /v1/console/requests/{id}/share': 'tms.v1.ConsoleService.ShareSavedRequest',
  'GET /v1/console/shared/{share_token}': 'tms.v1.ConsoleService.GetSavedRequest',
  'DELETE /v1/console/requests/{id}/share': 'tms.v1.ConsoleService.UnshareSavedRequest',
  'DELETE /v1/console/requests/{id}': 'tms.v1.ConsoleService.DeleteSavedRequest',
  'GET /v1/timelines': 'tms.v1.TimelineService.ListTimelines',
  'POST /v1/timelines': 'tms.v1.TimelineService.InsertTimeline',
  'GET /v1/timeline/{timeline_id}': 'tms.v1.TimelineService.GetTimeline',
  'DELETE /v1/timeline/{timeline_id}': 'tms.v1.TimelineService.DeleteTimeline',
};

/** Not RPCs: served to anyone, whatever Authorization says. */
const PUBLIC_PATHS = ['/healthz', '/readyz', '/metrics', '/openapi.json'];

// ------------------------------------------------------------------ calling

interface Answer {
  code: string;
  /** HTTP status (REST only). */
  status?: number;
  message: string;
}

/** Path parameters come from the fields; GET and DELETE send the rest as a query string, others as JSON. */
async function callRest(env: Env, route: RestRoute, fields: Fields, key: string | null): Promise<Answer> {
  const rest: Fields = { ...fields };
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(String(value));
  });
  const inQuery = route.method === 'GET' || route.method === 'DELETE';
  const query = inQuery && Object.keys(rest).length > 0 ? `?${new URLSearchParams(rest as Record<string, string>).toString()}` : '';
  const result = await call(env.server, route.method, path + query, inQuery ? { key } : { key, body: rest });
  const code = result.status === 200 ? 'ok' : String(result.json?.code);
  return { code, status: result.status, message: result.status === 200 ? '' : String(result.json?.message) };
}

async function callGrpc(env: Env, rpc: string, fields: Fields, key: string | null): Promise<Answer> {
  const result = await grpcCall(env.server.port, rpc, fields, key);
  return { code: result.codeName, message: result.message };
}

/** Runs every case of a row with every kind of credential; returns one line per cell that differs. */
async function runRow(env: Env, rpc: string, face: (fields: Fields, key: string | null) => Promise<Answer>, restPath?: string): Promise<string[]> {
  const rest = restPath !== undefined;
  const cases = RPC_ROWS[rpc];
  if (!cases) return [`no row for ${rpc}`];
  const wrong: string[] = [];
  for (const testCase of cases) {
    if (rest && testCase.restPath !== undefined && testCase.restPath !== restPath) continue;
    for (const kind of KINDS) {
      const want = expected(testCase.access, kind);
      const got = await face(await testCase.request(env), await bearer(env, kind));
      const problems: string[] = [];
      if (got.code !== want) problems.push(`code ${got.code}, want ${want}`);
      if (rest && got.status !== HTTP_STATUS[want]) problems.push(`status ${got.status}, want ${HTTP_STATUS[want]}`);
      if (want === 'unauthenticated') {
        const message = kind === 'none' ? 'missing Authorization: Bearer <API_KEY> header' : 'invalid or expired credentials';
        if (got.message !== message) problems.push(`message ${JSON.stringify(got.message)}`);
      }
      if (problems.length > 0) wrong.push(`${testCase.label} / ${kind}: ${problems.join(', ')} (${got.message})`);
    }
  }
  return wrong;
}

// ------------------------------------------------------------------ set-up

async function setUp(): Promise<Env> {
  const server = await startSeededServer([OWNER, OTHER, ...VICTIMS]);
  const ownerSession = await login(server, OWNER.username, OWNER.password);
  const otherSession = await login(server, OTHER.username, OTHER.password);
  const owner = (await createKey(server, ownerSession.token, { name: 'owner write', scopes: ['read', 'write'] })).key;
  const read = (await createKey(server, ownerSession.token, { name: 'owner read', scopes: ['read'] })).key;
  const other = (await createKey(server, otherSession.token, { name: 'other write', scopes: ['read', 'write'] })).key;
  const revoked = await createKey(server, ownerSession.token, { name: 'to revoke', scopes: ['read', 'write'] });
  await revokeKey(server, ownerSession.token, revoked.key_id);
  const expiring = await createKey(server, ownerSession.token, {
    name: 'expiring',
    scopes: ['read', 'write'],
    // Room for its creation and first use on a loaded machine; the matrix waits for the expiry itself.
    expires_at: new Date(Date.now() + 10_000).toISOString(),
  });
  // It works until it expires, so the 401s below are the expiry's doing.
  expectOk('the expiring key before its expiry', await call(server, 'GET', '/v1/keys', { key: expiring.key }));
  await logout(server, otherSession.token);
  const loggedOut = ownerSession.token;
  await logout(server, loggedOut);

  const env: Env = {
    server,
    keys: {
      bad_key: UNISSUED_KEY,
      revoked_key: revoked.key,
      logged_out_token: loggedOut,
      expired_key: expiring.key,
      read_key: read,
      other_write_key: other,
      owner,
    },
    timeline: '',
    anchor: '',
    primaryAnchor: '',
    primaryEvents: [],
    victims: [...VICTIMS],
    serial: 0,
  };
  env.timeline = (await asOwner(env, 'POST', '/v1/create-timeline', { base_timeline_id: 'primary', description: 'the owner timeline' }))
    .timeline_id;
  env.anchor = (await asOwner(env, 'POST', '/v1/set-anchor', { ...ANCHOR, timeline_id: env.timeline })).anchor_id;
  env.primaryAnchor = expectOk('an anchor on primary', await call(server, 'POST', '/v1/set-anchor', { body: ANCHOR })).json.anchor_id;
  const listed = await call(server, 'GET', '/v1/search-events?time_range=1000-01-01T00:00:00Z/2000-01-01T00:00:00Z&page_size=200');
  const reserved = new Set(['storming-of-the-bastille', 'moon-landing']);
  env.primaryEvents = (expectOk('primary events', listed).json.events as PrimaryEvent[]).filter((e) => !reserved.has(e.event_id));

  const wait = Date.parse(expiring.expires_at) - Date.now() + 50;
  if (wait > 0) await sleep(wait);
  return env;
}

// ------------------------------------------------------------------ the tests

const matrix = suite<{ env: Env }>('authorization matrix: every route and RPC × every kind of credential');
matrix.before(async (ctx) => {
  ctx.env = await setUp();
});
matrix.after(async (ctx) => {
  await ctx.env?.server.stop();
});

matrix('the REST table has exactly one row per route of routes.ts, naming the same RPC', () => {
  const actual = Object.fromEntries(restRoutes.map((route) => [`${route.method} ${route.path}`, route.rpc]));
  assert.equal(Object.keys(actual).length, restRoutes.length, 'no route is listed twice');
  assert.equal(actual, REST_ROWS);
});

matrix('the RPC table has exactly one row per RPC of rpcMethods', () => {
  assert.equal(Object.keys(RPC_ROWS).sort(), [...rpcMethods.keys()].sort());
});

for (const route of restRoutes) {
  matrix(`REST ${route.method} ${route.path}`, async ({ env }) => {
    const wrong = await runRow(env, route.rpc, (fields, key) => callRest(env, route, fields, key), route.path);
    assert.equal(wrong, []);
  });
}

for (const rpc of rpcMethods.keys()) {
  matrix(`gRPC ${rpc}`, async ({ env }) => {
    const wrong = await runRow(env, rpc, (fields, key) => callGrpc(env, rpc, fields, key));
    assert.equal(wrong, []);
  });
}

matrix('health, readiness, metrics and the OpenAPI document answer 200 to every kind of credential', async ({ env }) => {
  const wrong: string[] = [];
  for (const path of PUBLIC_PATHS) {
    for (const kind of KINDS) {
      const result = await call(env.server, 'GET', path, { key: await bearer(env, kind) });
      if (result.status !== 200) wrong.push(`${path} / ${kind}: ${result.status}`);
    }
  }
  assert.equal(wrong, []);
});

matrix('gRPC health Check answers SERVING to every kind of credential', async ({ env }) => {
  const wrong: string[] = [];
  for (const kind of KINDS) {
    const answer = await healthCheck(env.server.port, await bearer(env, kind));
    if (answer !== 'SERVING') wrong.push(`${kind}: ${answer}`);
  }
  assert.equal(wrong, []);
});

matrix("another account's 404 is word for word the 404 of an id that does not exist", async ({ env }) => {
  const theirs = await call(env.server, 'GET', `/v1/timeline/${env.timeline}`, { key: env.keys.other_write_key });
  const missing = await call(env.server, 'GET', '/v1/timeline/tl_does_not_exist', { key: env.keys.other_write_key });
  assert.is(theirs.status, 404);
  assert.equal(theirs.json, { ...missing.json, message: missing.json.message.replace('tl_does_not_exist', env.timeline) });
  const anchor = await call(env.server, 'GET', `/v1/check-anchor-stability?anchor_id=${env.anchor}`, { key: env.keys.other_write_key });
  const noAnchor = await call(env.server, 'GET', '/v1/check-anchor-stability?anchor_id=anc_nope', { key: env.keys.other_write_key });
  assert.is(anchor.status, 404);
  assert.equal(anchor.json, { ...noAnchor.json, message: noAnchor.json.message.replace('anc_nope', env.anchor) });
});

matrix('the refused kinds were really refused by authentication, and the others really were accepted', async ({ env }) => {
  // A cross-check on the fixtures: the matrix above means nothing if, say, the revoked key never worked.
  for (const kind of KINDS) {
    const result = await call(env.server, 'GET', '/v1/keys', { key: await bearer(env, kind) });
    assert.is(result.status, REFUSED.includes(kind) ? 401 : 200, `${kind}: ${result.text}`);
  }
});

matrix.run();

/** grpc.health.v1.Health/Check over a real grpc-js client: the serving status name, or the error. */
function healthCheck(port: number, key: string | null): Promise<string> {
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  const path = `/${Health.typeName}/${Health.method.check.name}`;
  return unary(client, path, HealthCheckRequestSchema, HealthCheckResponseSchema, create(HealthCheckRequestSchema, { service: '' }), authorizedBy(key))
    .then(
      (response) => HealthCheckResponse_ServingStatus[response.status] ?? 'unknown',
      (error: ServiceError) => `${status[error.code]}: ${error.details}`,
    )
    .finally(() => client.close());
}
