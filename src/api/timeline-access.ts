import type { Principal } from '../accounts/principal.ts';
import type { TimelineStore } from '../store/types.ts';
import { canChange, canSee } from '../accounts/authorization.ts';
import { ApiError, notFound } from '../domain/errors.ts';

/**
 * A timeline the caller may see, or `not_found` (never `permission_denied`: ids of other accounts'
 * timelines must not leak). `change` also requires the right to write to it.
 */
export async function requireTimeline(
  store: TimelineStore,
  principal: Principal,
  timelineId: string,
  access: 'read' | 'change',
): Promise<void> {
  const owner = await store.timelineOwner(timelineId);
  if (owner === undefined || !canSee(principal, owner)) throw notFound('timeline', timelineId);
  if (access === 'change' && !canChange(principal, timelineId, owner)) {
    throw new ApiError('permission_denied', `changing timeline "${timelineId}" needs the "admin" scope`);
  }
}
