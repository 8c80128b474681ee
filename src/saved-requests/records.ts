/** A request saved from the try-it console, as stored and as ConsoleService returns it. */
export interface SavedRequestRecord {
  /** `req_<time, base36><random>`: sorts by creation time. */
  id: string;
  name: string;
  method: string;
  /** Path and query on the service's own origin. */
  path: string;
  /** Lower-case names; never a credential (stripped when saved). */
  headers: Record<string, string>;
  body: string;
  created_at: string;
  /** The account that saved it. */
  owner: string;
  /** `shr_…` while shared; '' otherwise. */
  share_token: string;
}

/** What a caller gives to save a request. */
export interface NewSavedRequest {
  name: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}
