import { openStorage } from '../store/storage.ts';
import { AccessControl } from './access.ts';
import type { AccessOptions } from './access.ts';

export interface OfflineAccess {
  access: AccessControl;
  close(): Promise<void>;
}

/**
 * Opens a data directory for the command-line tools (`tms users`, `tms keys`), which work on the store
 * itself while the server is stopped. LevelDB admits one process at a time: a running server is an error
 * that says so.
 */
export async function openOffline(dataDir: string, options: { create?: boolean } & AccessOptions = {}): Promise<OfflineAccess> {
  const { create = false, ...accessOptions } = options;
  let storage;
  try {
    storage = await openStorage({ dataDir, create, primaryOwner: '' });
  } catch (error) {
    throw new Error(explainOpenFailure(dataDir, error), { cause: error });
  }
  try {
    const access = await AccessControl.open(storage.accounts, accessOptions);
    return {
      access,
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
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === 'LEVEL_LOCKED') {
    return `the data directory ${dataDir} is in use by another process (a running tms server holds its lock); stop the server first, or use the API (/v1/accounts, /v1/keys) while it runs`;
  }
  if (cause?.message?.includes('does not exist')) {
    return `no tms data directory at ${dataDir} (set --data-dir or TMS_DATA_DIR)`;
  }
  return `cannot open the data directory ${dataDir}: ${cause?.message ?? String(error)}`;
}
