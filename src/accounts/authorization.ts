import { ApiError } from '../domain/errors.ts';
import { PRIMARY_TIMELINE_ID } from '../domain/timelines.ts';
import { hasScope, sortScopes } from './principal.ts';
import type { Principal, Scope } from './principal.ts';

/** `public` RPCs need no credential at all. */
export type Requirement = Scope | 'public';

/**
 * THE authorization table: every RPC of every face (REST routes map onto these names) and what it needs.
 * read: reads. write: creating and changing timelines, events and anchors (one's own; `primary` needs
 * admin, see canChange). admin: other accounts. Keys and sessions are one's own, so `read` suffices;
 * the account operations check ownership themselves, and that only a session or an admin key makes keys or
 * revokes another key (AccessControl.createKey, revokeKey). An RPC missing here cannot be called.
 */
export const RPC_SCOPES: ReadonlyMap<string, Requirement> = new Map<string, Requirement>([
  ['tms.v1.EventService.SearchEvents', 'read'],
  ['tms.v1.EventService.ManipulateEvent', 'write'],
  ['tms.v1.EventService.RevertEvent', 'write'],

  ['tms.v1.TimelineService.CreateTimeline', 'write'],
  ['tms.v1.TimelineService.CreateParallelTimeline', 'write'],
  ['tms.v1.TimelineService.InsertTimeline', 'write'],
  ['tms.v1.TimelineService.ListTimelines', 'read'],
  ['tms.v1.TimelineService.GetTimeline', 'read'],
  ['tms.v1.TimelineService.DeleteTimeline', 'write'],

  ['tms.v1.ParadoxService.CheckParadox', 'read'],

  ['tms.v1.AnchorService.SetAnchor', 'write'],
  ['tms.v1.AnchorService.CheckAnchorStability', 'read'],
  ['tms.v1.AnchorService.AdjustAnchor', 'write'],

  ['tms.v1.TutorialService.Travel', 'write'],
  ['tms.v1.TutorialService.ScanEvents', 'read'],
  ['tms.v1.TutorialService.ManipulateEvent', 'write'],
  ['tms.v1.TutorialService.MonitorParadox', 'read'],
  ['tms.v1.TutorialService.CheckTimeline', 'read'],

  ['tms.v1.AccountService.Login', 'public'],
  ['tms.v1.AccountService.Logout', 'read'],
  ['tms.v1.AccountService.CreateAccount', 'admin'],
  ['tms.v1.AccountService.ListAccounts', 'admin'],
  ['tms.v1.AccountService.DeleteAccount', 'admin'],
  ['tms.v1.AccountService.CreateKey', 'read'],
  ['tms.v1.AccountService.ListKeys', 'read'],
  ['tms.v1.AccountService.RevokeKey', 'read'],

  ['tms.v1.ConsoleService.SaveRequest', 'read'],
  ['tms.v1.ConsoleService.ListSavedRequests', 'read'],
  ['tms.v1.ConsoleService.GetSavedRequest', 'read'],
  ['tms.v1.ConsoleService.DeleteSavedRequest', 'read'],
  ['tms.v1.ConsoleService.ShareSavedRequest', 'read'],
  ['tms.v1.ConsoleService.UnshareSavedRequest', 'read'],

  // Infrastructure that load balancers and tools (grpcurl, grpcui) call without credentials.
  ['grpc.health.v1.Health.Check', 'public'],
  ['grpc.health.v1.Health.Watch', 'public'],
  ['grpc.health.v1.Health.List', 'public'],
  ['grpc.reflection.v1.ServerReflection.ServerReflectionInfo', 'public'],
  ['grpc.reflection.v1alpha.ServerReflection.ServerReflectionInfo', 'public'],
]);

/** `tms.v1.EventService.SearchEvents`; also accepts the gRPC path form `/tms.v1.EventService/SearchEvents`. */
function lookup(rpc: string): Requirement | undefined {
  return RPC_SCOPES.get(rpc) ?? RPC_SCOPES.get(rpc.replace(/^\//, '').replace('/', '.'));
}

/** What an RPC needs. Throws for an RPC the table does not know: a new RPC cannot be forgotten. */
export function requiredScope(rpc: string): Requirement {
  const requirement = lookup(rpc);
  if (requirement === undefined) {
    throw new ApiError('internal', `${rpc} has no entry in the authorization table (src/accounts/authorization.ts)`);
  }
  return requirement;
}

export function isPublic(rpc: string): boolean {
  return requiredScope(rpc) === 'public';
}

/** For start-up: every RPC the server registers must be in the table (throws naming the missing ones). */
export function assertCovered(rpcs: Iterable<string>): void {
  const missing = [...rpcs].filter((rpc) => lookup(rpc) === undefined);
  if (missing.length > 0) {
    throw new Error(`RPCs missing from the authorization table (src/accounts/authorization.ts): ${missing.join(', ')}`);
  }
}

/** permission_denied unless the principal holds the RPC's scope (public RPCs pass). */
export function authorize(principal: Principal, rpc: string): void {
  const requirement = requiredScope(rpc);
  if (requirement === 'public' || hasScope(principal, requirement)) return;
  const held = sortScopes(principal.scopes).join(', ') || 'no scopes';
  throw new ApiError('permission_denied', `${rpc} needs the "${requirement}" scope; this credential has: ${held}`);
}

/**
 * Records owned by nobody (owner '': `primary` and its seeded history) are visible to all; others only to
 * their owner and to admins. Callers answer not_found when this is false, so ids do not leak.
 */
export function canSee(principal: Principal, owner: string | undefined): boolean {
  return !owner || owner === principal.account || hasScope(principal, 'admin');
}

/** Writing to a timeline or anchor: its owner (with write) or an admin; `primary` and unowned records: admin. */
export function canChange(principal: Principal, recordId: string, owner: string | undefined): boolean {
  if (hasScope(principal, 'admin')) return true;
  if (!hasScope(principal, 'write') || recordId === PRIMARY_TIMELINE_ID) return false;
  return !!owner && owner === principal.account;
}
