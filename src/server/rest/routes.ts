/**
 * The REST face: each documented path is a name for one RPC. The JSON request and response are the RPC's
 * request and response in snake_case; GET and DELETE routes also take their fields from the query string, and
 * the other methods refuse one.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RestRoute {
  method: HttpMethod;
  /** Path template; `{name}` segments become request fields. */
  path: string;
  /** Fully qualified RPC name, e.g. `tms.v1.EventService.SearchEvents`. */
  rpc: string;
  summary: string;
  /** OpenAPI operationId, where the RPC's own name would be taken twice. */
  operationId?: string;
  /**
   * A request that works against a fresh start (README, OpenAPI, console): every field, path parameters
   * included. `<prefix>REPLACE_WITH_<field>` stands for the `<field>` an earlier example's response returned.
   */
  example?: Record<string, unknown>;
}

/** The spec's full anchor; set-anchor's response example echoes it (response-examples.ts). */
export const SET_ANCHOR_EXAMPLE = {
  timestamp: '2025-01-01T00:00:00.000001Z',
  description: 'New Year anchor',
  accuracy: 'nanosecond',
  environment: { temperature: '22°C', humidity: '45%', em_field_strength: '0.5T' },
  quantum_state: { qubit_configuration: '1010', superposition_stability: '99.9%' },
};

const timelineRoutes = (prefix: string): RestRoute[] => [
  {
    method: 'GET',
    path: `${prefix}/timelines`,
    rpc: 'tms.v1.TimelineService.ListTimelines',
    summary: 'List the timelines you can see.',
    example: { page_size: 10 },
  },
  {
    method: 'POST',
    path: `${prefix}/timelines`,
    rpc: 'tms.v1.TimelineService.InsertTimeline',
    summary: 'Create a timeline: alternate, or parallel when a variation is given.',
    example: { base_timeline_id: 'primary', description: 'What if the library of Alexandria survived?' },
  },
  {
    method: 'GET',
    path: `${prefix}/timeline/{timeline_id}`,
    rpc: 'tms.v1.TimelineService.GetTimeline',
    summary: 'Get one timeline.',
    example: { timeline_id: 'primary' },
  },
  {
    method: 'DELETE',
    path: `${prefix}/timeline/{timeline_id}`,
    rpc: 'tms.v1.TimelineService.DeleteTimeline',
    summary: 'Delete a timeline that nothing branches from.',
    example: { timeline_id: 'tl_REPLACE_WITH_timeline_id' },
  },
];

/** Saved console requests, in the order of a story: save, list, get, share, open shared, unshare, delete. */
const consoleRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/v1/console/requests',
    rpc: 'tms.v1.ConsoleService.SaveRequest',
    summary: 'Save a request to your account (credential headers are dropped).',
    example: {
      name: 'Paris in the 1790s',
      method: 'GET',
      path: '/v1/search-events?location=Paris&time_range=1789-01-01T00:00:00Z/1799-12-31T23:59:59Z',
      headers: { accept: 'application/json' },
      body: '',
    },
  },
  {
    method: 'GET',
    path: '/v1/console/requests',
    rpc: 'tms.v1.ConsoleService.ListSavedRequests',
    summary: 'Your saved requests, newest first.',
    example: { page_size: 10 },
  },
  {
    method: 'GET',
    path: '/v1/console/requests/{id}',
    rpc: 'tms.v1.ConsoleService.GetSavedRequest',
    summary: 'One of your saved requests.',
    example: { id: 'req_REPLACE_WITH_id' },
  },
  {
    method: 'POST',
    path: '/v1/console/requests/{id}/share',
    rpc: 'tms.v1.ConsoleService.ShareSavedRequest',
    summary: 'Share a saved request: any logged-in user with its share token can open it.',
    example: { id: 'req_REPLACE_WITH_id' },
  },
  {
    method: 'GET',
    path: '/v1/console/shared/{share_token}',
    rpc: 'tms.v1.ConsoleService.GetSavedRequest',
    operationId: 'ConsoleService_GetSharedRequest',
    summary: 'Open a request shared with you, by its share token.',
    example: { share_token: 'shr_REPLACE_WITH_share_token' },
  },
  {
    method: 'DELETE',
    path: '/v1/console/requests/{id}/share',
    rpc: 'tms.v1.ConsoleService.UnshareSavedRequest',
    summary: 'Stop sharing a saved request: its share token stops working at once.',
    example: { id: 'req_REPLACE_WITH_id' },
  },
  {
    method: 'DELETE',
    path: '/v1/console/requests/{id}',
    rpc: 'tms.v1.ConsoleService.DeleteSavedRequest',
    summary: 'Delete one of your saved requests.',
    example: { id: 'req_REPLACE_WITH_id' },
  },
];

export const restRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/v1/search-events',
    rpc: 'tms.v1.EventService.SearchEvents',
    summary: 'Search events by location words and an ISO 8601 time range.',
    example: { location: 'Paris, France', time_range: '1789-01-01T00:00:00Z/1799-12-31T23:59:59Z' },
  },
  {
    method: 'POST',
    path: '/v1/manipulate-event',
    rpc: 'tms.v1.EventService.ManipulateEvent',
    summary: 'Change the outcome of an event; the result is a new event that supersedes it on that timeline.',
    example: {
      event_id: 'storming-of-the-bastille',
      new_outcome: {
        description: 'The Bastille garrison negotiates a peaceful surrender.',
        changes: [{ action: 'negotiate', time: '1789-07-14T10:00:00Z' }],
      },
      safety_check: true,
    },
  },
  {
    method: 'POST',
    path: '/v1/revert-event',
    rpc: 'tms.v1.EventService.RevertEvent',
    summary: 'Undo a manipulation: restore the original event on that timeline.',
    example: { event_id: 'evt_REPLACE_WITH_new_event_id' },
  },
  {
    method: 'POST',
    path: '/v1/create-timeline',
    rpc: 'tms.v1.TimelineService.CreateTimeline',
    summary: 'Create an alternate timeline: a frozen copy-on-write fork of its base.',
    example: { base_timeline_id: 'primary', description: 'Alternate timeline for testing.' },
  },
  {
    method: 'POST',
    path: '/v1/create-parallel-timeline',
    rpc: 'tms.v1.TimelineService.CreateParallelTimeline',
    summary: 'Create a parallel timeline: it keeps seeing its base change, except where it changed things itself.',
    example: { base_timeline_id: 'primary', description: 'Parallel timeline for experiments.', variation: 'No printing press' },
  },
  {
    method: 'GET',
    path: '/v1/check-paradox',
    rpc: 'tms.v1.ParadoxService.CheckParadox',
    summary: 'Analyse the whole causal graph of a timeline for paradoxes.',
    example: { timeline_id: 'primary' },
  },
  {
    method: 'POST',
    path: '/v1/set-anchor',
    rpc: 'tms.v1.AnchorService.SetAnchor',
    summary: 'Pin a temporal anchor at a timestamp.',
    example: SET_ANCHOR_EXAMPLE,
  },
  {
    method: 'GET',
    path: '/v1/check-anchor-stability',
    rpc: 'tms.v1.AnchorService.CheckAnchorStability',
    summary: 'Simulate an anchor and report whether it holds its accuracy.',
    example: { anchor_id: 'anc_REPLACE_WITH_anchor_id' },
  },
  {
    method: 'POST',
    path: '/v1/adjust-anchor',
    rpc: 'tms.v1.AnchorService.AdjustAnchor',
    summary: "Replace an anchor's environment and recompute its stability.",
    example: {
      anchor_id: 'anc_REPLACE_WITH_anchor_id',
      new_environment: { temperature: '20°C', humidity: '40%', em_field_strength: '0.3T' },
    },
  },
  {
    method: 'POST',
    path: '/api/v1/travel',
    rpc: 'tms.v1.TutorialService.Travel',
    summary: "Record the caller's arrival at a time and place; returns the events around it.",
    example: { destination_time: '1969-07-20T20:17:40Z', location: 'Houston, United States' },
  },
  {
    method: 'POST',
    path: '/api/v1/scan-events',
    rpc: 'tms.v1.TutorialService.ScanEvents',
    summary: 'Search events (the tutorial form of search-events).',
    example: { location: 'Rome', time_range: '-000100-01-01T00:00:00Z/0100-01-01T00:00:00Z' },
  },
  {
    method: 'POST',
    path: '/api/v1/manipulate-event',
    rpc: 'tms.v1.TutorialService.ManipulateEvent',
    summary: 'Manipulate an event with one change (the flat tutorial form).',
    example: { event_id: 'storming-of-the-bastille', action: 'reschedule', time: '1789-07-15T10:00:00Z' },
  },
  {
    method: 'GET',
    path: '/api/v1/monitor-paradox',
    rpc: 'tms.v1.TutorialService.MonitorParadox',
    summary: 'Paradox check limited to events in a time range.',
    example: { timeline_id: 'primary', time_range: '1900-01-01T00:00:00Z/2000-01-01T00:00:00Z' },
  },
  {
    method: 'GET',
    path: '/api/v1/check-timeline',
    rpc: 'tms.v1.TutorialService.CheckTimeline',
    summary: 'Is a significant event intact, altered or absent on a timeline compared with primary?',
    example: { timeline_id: 'primary', significant_event: 'moon-landing' },
  },
  // The account examples are one story: create `ada`, log in as her, log out, delete her.
  {
    method: 'POST',
    path: '/v1/login',
    rpc: 'tms.v1.AccountService.Login',
    summary: 'Log in: a short-lived session token to use as the bearer.',
    example: { username: 'ada', password: 'correct horse battery staple' },
  },
  { method: 'POST', path: '/v1/logout', rpc: 'tms.v1.AccountService.Logout', summary: 'End the session whose token is the bearer.', example: {} },
  {
    method: 'POST',
    path: '/v1/accounts',
    rpc: 'tms.v1.AccountService.CreateAccount',
    summary: 'Create an account (admin).',
    example: { username: 'ada', password: 'correct horse battery staple', scopes: ['read', 'write'] },
  },
  { method: 'GET', path: '/v1/accounts', rpc: 'tms.v1.AccountService.ListAccounts', summary: 'List accounts (admin).', example: { page_size: 10 } },
  {
    method: 'DELETE',
    path: '/v1/accounts/{username}',
    rpc: 'tms.v1.AccountService.DeleteAccount',
    summary: 'Remove an account and its keys (admin).',
    example: { username: 'ada' },
  },
  {
    method: 'POST',
    path: '/v1/keys',
    rpc: 'tms.v1.AccountService.CreateKey',
    summary: 'Create an API key (a login session or an admin key only); its secret is shown once.',
    example: { name: 'ci', scopes: ['read'] },
  },
  { method: 'GET', path: '/v1/keys', rpc: 'tms.v1.AccountService.ListKeys', summary: 'List API keys (no secrets).', example: { page_size: 10 } },
  {
    method: 'DELETE',
    path: '/v1/keys/{key_id}',
    rpc: 'tms.v1.AccountService.RevokeKey',
    summary: 'Revoke an API key at once (a key without admin scope: only itself).',
    example: { key_id: 'key_REPLACE_WITH_key_id' },
  },
  ...consoleRoutes,
  ...timelineRoutes(''),
  ...timelineRoutes('/v1'),
];
