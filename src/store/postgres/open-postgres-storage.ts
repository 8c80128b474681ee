import type { Storage, StorageOptions } from '../storage.ts';
import { CopyOnWriteTimelineStore } from '../timeline-store.ts';
import { migrate } from './migrations.ts';
import { openPool, type PostgresOptions } from './pool.ts';
import { PgAccountStore } from './pg-account-store.ts';
import { PgKeyValueSpace } from './pg-key-value-space.ts';
import { PgSavedRequestStore } from './pg-saved-request-store.ts';
import { isUnavailable, reportingUnavailable } from './unavailable.ts';
import { explainOpenFailure } from './open-failures.ts';
import { PgCommitLog } from './pg-commit-log.ts';
import { snapshotAll } from './pg-store-snapshot.ts';

/** How often the database is asked whether it is there, for the readiness check. */
const PROBE_MS = 1_000;
/** Connections for catching up with other nodes' commits (a few short reads). */
const LOG_CONNECTIONS = 3;

/**
 * Connects, brings the schema up to date (once, however many nodes start together), and opens the stores:
 * nothing is kept on the local disk, and any number of nodes may share the database. While the database is unreachable, the stores fail with
 * `StoreUnavailableError` and `problem()` says so; both end by themselves when it answers again.
 */
export async function openPostgresStorage(
  options: PostgresOptions & Pick<StorageOptions, 'primaryOwner' | 'timelineOptions'>,
): Promise<Storage> {
  const pool = openPool(options);
  const logPool = openPool({ ...options, maxConnections: LOG_CONNECTIONS });
  try {
    await migrate(pool, options.schema ?? 'public');
    const entries = new PgKeyValueSpace(pool);
    const timelines = new CopyOnWriteTimelineStore(
      entries,
      { ...options.timelineOptions, primaryOwner: options.primaryOwner ?? '' },
      new PgCommitLog(pool, logPool),
    );
    await timelines.open();
    let problem: string | undefined;
    const report = (error: unknown) => (problem = `the database is unreachable: ${(error as Error).message}`);
    const probe = setInterval(() => {
      pool.query('SELECT 1').then(
        () => (problem = undefined),
        (error: unknown) => (isUnavailable(error) ? report(error) : undefined),
      );
    }, PROBE_MS);
    probe.unref();
    return {
      timelines: reportingUnavailable(timelines, report),
      accounts: reportingUnavailable(new PgAccountStore(pool), report),
      savedRequests: reportingUnavailable(new PgSavedRequestStore(pool), report),
      timelineEntries: reportingUnavailable(entries, report),
      snapshotAll: (work) => snapshotAll(pool, work),
      problem: () => problem,
      async close() {
        clearInterval(probe);
        await timelines.close();
        await Promise.all([pool.end(), logPool.end()]);
      },
    };
  } catch (error) {
    await Promise.all([pool.end(), logPool.end()]);
    throw explainOpenFailure(error, options.url);
  }
}
