import { SET_ANCHOR_EXAMPLE } from './routes.ts';

/**
 * One 200 response per RPC, for /openapi.json: what the service answered to the route's request example
 * (routes.ts) on a fresh start, with long lists cut to one or two entries. test/api/openapi.test.ts checks
 * each against its response schema, field names included.
 */
const bastille = {
  event_id: 'storming-of-the-bastille',
  description: 'A Paris crowd storms the Bastille fortress and prison, a defining moment of the French Revolution.',
  time: '1789-07-14T12:00:00Z',
  location: 'Paris, France',
  causes: ['estates-general-opens'],
  status: 'original',
  timeline_id: 'primary',
};

const moonLanding = {
  event_id: 'moon-landing',
  description: 'The Apollo 11 lunar module Eagle lands on the Moon.',
  time: '1969-07-20T20:17:40Z',
  location: 'Tranquility Base, Moon',
  causes: ['apollo-11-launch'],
  status: 'original',
  timeline_id: 'primary',
};

const primary = {
  timeline_id: 'primary',
  kind: 'primary',
  description: 'The main timeline',
  base_timeline_id: '',
  variation: '',
  created_at: '2025-01-01T09:00:00.000Z',
  owner: '',
  revision: 0,
  event_count: 396,
  stability: 'Stable',
};

const branch = (timeline_id: string, kind: 'alternate' | 'parallel', description: string, variation = '') => ({
  timeline_id,
  status: `${kind === 'parallel' ? 'Parallel' : 'Alternate'} timeline created successfully`,
  description,
  timeline: {
    ...primary,
    timeline_id,
    kind,
    description,
    base_timeline_id: 'primary',
    variation,
    created_at: '2025-01-01T09:05:00.000Z',
    owner: 'admin',
    stability: 'Unknown',
  },
});

const manipulated = (new_event_id: string, description: string, time: string, action: string, changeTime: string) => ({
  status: 'Event manipulated successfully',
  new_event_id,
  description,
  time,
  original_event_id: 'storming-of-the-bastille',
  timeline_id: 'primary',
  event: {
    ...bastille,
    event_id: new_event_id,
    description,
    time,
    status: 'manipulated',
    supersedes: 'storming-of-the-bastille',
    changes: [{ action, time: changeTime }],
    created_by: 'admin',
    created_at: '2025-01-01T09:10:00.000Z',
  },
});

const noParadoxes = (events: number, anchors: number) => ({
  status: 'No paradoxes detected',
  timeline_stability: 'Stable',
  paradoxes: [],
  figures: { events_analysed: events, links_analysed: 258, anchors_analysed: anchors, duration_ms: 4.7 },
});

const anchorFigures = (predicted: number) => ({
  predicted_error_seconds: predicted,
  tolerance_seconds: 1e-9,
  hold_interval_seconds: 1,
  limiting_factor: 'em_field_strength',
  samples: 1048576,
});

const adminKey = {
  key_id: 'key_aa4e36d3f3a5d9d6',
  name: 'TMS_ADMIN_KEY',
  scopes: ['read', 'write', 'admin'],
  created_at: '2025-01-01T09:00:00.000Z',
  expires_at: '',
  last_used_at: '2025-01-01T09:20:00.000Z',
  account: 'admin',
};

const ciKey = { key_id: 'key_f0b90e18ac87ccce', name: 'ci', scopes: ['read'], created_at: '2025-01-01T09:21:00.000Z', expires_at: '', account: 'admin' };

const savedParis = {
  id: 'req_0m5zq3k0a9f3c1d2e4b',
  name: 'Paris in the 1790s',
  method: 'GET',
  path: '/v1/search-events?location=Paris&time_range=1789-01-01T00:00:00Z/1799-12-31T23:59:59Z',
  headers: { accept: 'application/json' },
  body: '',
  created_at: '2025-01-01T09:30:00.000Z',
  owner: 'admin',
  share_token: '',
};
const sharedParis = { ...savedParis, share_token: 'shr_v2yB1bq0Ykx8kU6cQ3pT1s0oQm4J9rXw2Zc7dLh5eFs' };

export const responseExamples: Readonly<Record<string, object>> = {
  'tms.v1.EventService.SearchEvents': { events: [bastille], next_page_token: '' },
  'tms.v1.EventService.ManipulateEvent': manipulated(
    'evt_nu4dakt54qcg2hehzxli',
    'The Bastille garrison negotiates a peaceful surrender.',
    bastille.time,
    'negotiate',
    '1789-07-14T10:00:00Z',
  ),
  'tms.v1.EventService.RevertEvent': {
    status: 'Event reverted successfully',
    original_event_id: 'storming-of-the-bastille',
    timeline_id: 'primary',
  },
  'tms.v1.TimelineService.CreateTimeline': branch('tl_fzef5nfmbv2lepsuerbw', 'alternate', 'Alternate timeline for testing.'),
  'tms.v1.TimelineService.CreateParallelTimeline': branch(
    'tl_4veqqrxvtvrhqoimhvgm',
    'parallel',
    'Parallel timeline for experiments.',
    'No printing press',
  ),
  'tms.v1.TimelineService.InsertTimeline': branch('tl_fkb4acuwrints4j5pleg', 'alternate', 'What if the library of Alexandria survived?'),
  'tms.v1.TimelineService.ListTimelines': {
    timelines: [primary, branch('tl_fzef5nfmbv2lepsuerbw', 'alternate', 'Alternate timeline for testing.').timeline],
    next_page_token: '',
  },
  'tms.v1.TimelineService.GetTimeline': { timeline: primary },
  'tms.v1.TimelineService.DeleteTimeline': { status: 'Timeline deleted successfully', timeline_id: 'tl_fkb4acuwrints4j5pleg' },
  'tms.v1.ParadoxService.CheckParadox': noParadoxes(396, 0),
  'tms.v1.AnchorService.SetAnchor': {
    anchor_id: 'anc_yoo6gw54pj4jkaktkr5y',
    status: 'Anchor set successfully',
    ...SET_ANCHOR_EXAMPLE,
    timeline_id: 'primary',
  },
  'tms.v1.AnchorService.CheckAnchorStability': {
    status: 'Stable',
    current_conditions: SET_ANCHOR_EXAMPLE.environment,
    figures: anchorFigures(9.96e-10),
  },
  'tms.v1.AnchorService.AdjustAnchor': {
    status: 'Stable',
    new_conditions: { temperature: '20°C', humidity: '40%', em_field_strength: '0.3T' },
    figures: anchorFigures(5.95e-10),
  },
  'tms.v1.TutorialService.Travel': {
    status: 'Arrived at Houston, United States on 1969-07-20T20:17:40Z',
    arrival: {
      event_id: 'evt_ovffdre2lmczbn2jpif2',
      description: 'Arrival of traveller admin',
      time: '1969-07-20T20:17:40Z',
      location: 'Houston, United States',
      causes: [],
      status: 'original',
      timeline_id: 'primary',
      created_by: 'admin',
      created_at: '2025-01-01T09:15:00.000Z',
    },
    nearby_events: [],
  },
  'tms.v1.TutorialService.ScanEvents': {
    events: [
      {
        event_id: 'assassination-of-julius-caesar',
        description:
          'Julius Caesar is stabbed to death by senators led by Brutus and Cassius at a meeting of the Senate in the Curia of Pompey on the Ides of March (15 March 44 BC in the Julian calendar).',
        time: '-000043-03-13T12:00:00Z',
        location: 'Rome, Italy',
        causes: [],
        status: 'original',
        timeline_id: 'primary',
      },
    ],
    next_page_token: '',
  },
  'tms.v1.TutorialService.ManipulateEvent': manipulated(
    'evt_q5ofh3ttemxyoi5zly2v',
    bastille.description,
    '1789-07-15T10:00:00Z',
    'reschedule',
    '1789-07-15T10:00:00Z',
  ),
  'tms.v1.TutorialService.MonitorParadox': noParadoxes(397, 1),
  'tms.v1.TutorialService.CheckTimeline': {
    status: 'Event "moon-landing" is intact on timeline "primary"',
    state: 'intact',
    event: moonLanding,
    primary_event: moonLanding,
    differences: [],
  },
  'tms.v1.AccountService.Login': {
    token: 'tms_ses_2e0783ec2b931df5_FdVnda91_tY6XYxLUA7lkl_rKAjyt9JtoYE4IOfBZcQ',
    expires_at: '2025-01-01T10:20:00.000Z',
  },
  'tms.v1.AccountService.Logout': { status: 'Logged out' },
  'tms.v1.AccountService.CreateAccount': {
    status: 'Account created',
    account: { username: 'ada', scopes: ['read', 'write'], created_at: '2025-01-01T09:18:00.000Z' },
  },
  'tms.v1.AccountService.ListAccounts': {
    accounts: [
      { username: 'ada', scopes: ['read', 'write'], created_at: '2025-01-01T09:18:00.000Z' },
      { username: 'admin', scopes: ['read', 'write', 'admin'], created_at: '2025-01-01T09:00:00.000Z' },
    ],
    next_page_token: '',
  },
  'tms.v1.AccountService.DeleteAccount': { status: 'Account deleted', username: 'ada' },
  'tms.v1.AccountService.CreateKey': { ...ciKey, key: 'tms_key_f0b90e18ac87ccce_4_FMNQXNdZvKt87koImhLDaKlEg_1bG00TfI55yYbuA' },
  'tms.v1.AccountService.ListKeys': { keys: [adminKey, { ...ciKey, last_used_at: '' }], next_page_token: '' },
  'tms.v1.AccountService.RevokeKey': { status: 'Key revoked', key_id: ciKey.key_id },
  'tms.v1.ConsoleService.SaveRequest': { saved_request: savedParis },
  'tms.v1.ConsoleService.ListSavedRequests': { saved_requests: [savedParis], next_page_token: '' },
  'tms.v1.ConsoleService.GetSavedRequest': { saved_request: sharedParis },
  'tms.v1.ConsoleService.ShareSavedRequest': { saved_request: sharedParis },
  'tms.v1.ConsoleService.UnshareSavedRequest': { saved_request: savedParis },
  'tms.v1.ConsoleService.DeleteSavedRequest': { status: 'Saved request deleted', id: savedParis.id },
};
