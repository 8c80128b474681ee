import { SavedRequests } from '../saved-requests/saved-requests.ts';
import { openStorage, StoreOpenError } from '../store/storage.ts';
import { AccessControl } from './access.ts';
import { timelinesOwnedBy } from './owned-by-name.ts';
import type { AccessOptions } from './access.ts';

export interface OfflineAccess {
  access: AccessControl;
  savedRequests: SavedRequests;
  close(): Promise<void>;
}

/**
 * Opens a store for the command-line tools (`tms users`, `tms keys`), which work on the store itself. A
 * LevelDB folder admits one process at a time, so the server must be stopped (a running one is an error that
 * says so); a PostgreSQL store is shared, and running servers see the change from their next request.
 */
export async function openOffline(dataDir: string, options: { create?: boolean; databaseUrl?: string } & AccessOptions = {}): Promise<OfflineAccess> {
  const { create = false, databaseUrl, ...accessOptions } = options;
  let storage;
  try {
    storage = await openStorage({ dataDir, create, primaryOwner: '', ...(databaseUrl && { databaseUrl }) });
  } catch (error) {
    if (databaseUrl) throw error;
    throw new Error(explainOpenFailure(dataDir, error), { cause: error });
  }
  try {
    const access = await AccessControl.open(storage.accounts, { ownedByName: timelinesOwnedBy(storage.timelines), ...accessOptions });
    return {
      access,
      savedRequests: new SavedRequests(storage.savedRequests),
      async close() {
        await access.close();
        await storage.close();
      },
    };
  } catch (error) {
    await storage.close();
    throw error;
  }
}

function explainOpenFailure(dataDir: string, error: unknown): string {
  if (error instanceof StoreOpenError) return error.message;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === 'LEVEL_LOCKED') {
    return `the data directory ${dataDir} is in use by another process (a running tms server holds its lock); stop the server first, or use the API (/v1/accounts, /v1/keys) while it runs`;
  }
  return `cannot open the data directory ${dataDir}: ${cause?.message ?? String(error)}`;
}
