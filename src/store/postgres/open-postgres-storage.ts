import type { Storage, StorageOptions } from '../storage.ts';
import { CopyOnWriteTimelineStore } from '../timeline-store.ts';
import { migrate } from './migrations.ts';
import { openPool, type PostgresOptions } from './pool.ts';
import { PgAccountStore } from './pg-account-store.ts';
import { PgKeyValueSpace } from './pg-key-value-space.ts';
import { PgSavedRequestStore } from './pg-saved-request-store.ts';
import { isUnavailable, reportingUnavailable } from './unavailable.ts';
import { explainOpenFailure } from './open-failures.ts';
import { NodeLease, type LeaseOptions } from './node-lease.ts';

/** How often the database is asked whether it is there, for the readiness check. */
const PROBE_MS = 1_000;

/**
 * Connects, brings the schema up to date (once, however many nodes start together), and opens the stores:
 * nothing is kept on the local disk. While the database is unreachable, the stores fail with
 * `StoreUnavailableError` and `problem()` says so; both end by themselves when it answers again.
 */
export async function openPostgresStorage(
  options: PostgresOptions & Pick<StorageOptions, 'primaryOwner' | 'timelineOptions'> & { lease?: LeaseOptions },
): Promise<Storage> {
  const pool = openPool(options);
  let lease: NodeLease | undefined;
  try {
    await migrate(pool, options.schema ?? 'public');
    lease = await NodeLease.acquire(pool, options.lease);
    const held = lease;
    const entries = new PgKeyValueSpace(pool);
    const timelines = new CopyOnWriteTimelineStore(entries, { ...options.timelineOptions, primaryOwner: options.primaryOwner ?? '' });
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
    const refusal = () => held.problem();
    return {
      timelines: reportingUnavailable(timelines, report, refusal),
      accounts: reportingUnavailable(new PgAccountStore(pool), report, refusal),
      savedRequests: reportingUnavailable(new PgSavedRequestStore(pool), report, refusal),
      timelineEntries: reportingUnavailable(entries, report, refusal),
      problem: () => held.problem() ?? problem,
      async close() {
        clearInterval(probe);
        await timelines.close();
        await held.release().catch(() => undefined);
        await pool.end();
      },
    };
  } catch (error) {
    await lease?.release().catch(() => undefined);
    await pool.end();
    throw explainOpenFailure(error, options.url);
  }
}
