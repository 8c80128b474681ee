import type { TimelineStore } from '../store/types.ts';

/** How many live timelines a username owns (`AccessOptions.ownedByName`): a scan of the timeline list, made only when an account is created. */
export const timelinesOwnedBy =
  (timelines: Pick<TimelineStore, 'listTimelines'>) =>
  async (username: string): Promise<number> =>
    (await timelines.listTimelines()).filter((timeline) => timeline.owner === username).length;
