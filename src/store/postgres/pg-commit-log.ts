import type pg from 'pg';
import type { Commit, CommitBatch, CommitLog } from '../commit-log.ts';
import { WriterQueues } from '../writer-queues.ts';
import { writeOps } from './pg-key-value-space.ts';
import { inTransaction } from './transaction.ts';

/** Commits kept for nodes to replay; one that falls further behind reloads its state instead. */
const KEPT_COMMITS = 100_000;
const PRUNE_EVERY = 1_000;

/**
 * The commit log of a store that many nodes share: `tms_clock` holds the newest LSN, and each commit is one
 * transaction that first takes the next LSN (locking that row, so commits run one at a time across all
 * nodes, in LSN order), then writes its batch and its note to `tms_commit_log`. Notes below
 * `tms_clock.pruned_below` are deleted.
 */
export class PgCommitLog implements CommitLog {
  readonly shared = true;
  /** One commit in flight per node: the others wait here, not holding a connection while the row is locked. */
  private readonly local = new WriterQueues();
  private commits = 0;

  /**
   * `pool` runs the commits; `readPool`, the log's reads. They are apart because a reader holding one of
   * `pool`'s connections (a search's snapshot) may need to catch up first: from the same pool, a burst of
   * such readers would wait for each other's connections forever.
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly readPool: pg.Pool,
  ) {}

  async start(lsn: number): Promise<void> {
    await this.pool.query('UPDATE tms_clock SET lsn = GREATEST(lsn, $1)', [lsn]);
  }

  async head(): Promise<number> {
    const { rows } = await this.readPool.query<{ lsn: string }>('SELECT lsn FROM tms_clock');
    return Number(rows[0]!.lsn);
  }

  async since(lsn: number): Promise<Commit[] | undefined> {
    const { rows } = await this.readPool.query<{ lsn: string; note: Buffer }>('SELECT lsn, note FROM tms_commit_log WHERE lsn > $1 ORDER BY lsn', [lsn]);
    // Read after the commits: if pruning ran meanwhile, some may be missing.
    const { rows: clock } = await this.readPool.query<{ pruned_below: string }>('SELECT pruned_below FROM tms_clock');
    if (lsn + 1 < Number(clock[0]!.pruned_below)) return undefined;
    return rows.map((row) => ({ lsn: Number(row.lsn), note: row.note }));
  }

  async commit<T>(build: (lsn: () => number) => Promise<CommitBatch<T>>): Promise<T> {
    const result = await this.local.run('commit', () =>
      inTransaction(this.pool, async (client) => {
        const { rows } = await client.query<{ lsn: string }>('UPDATE tms_clock SET lsn = lsn + 1 RETURNING lsn');
        const lsn = Number(rows[0]!.lsn);
        const { ops, note, result } = await build(() => lsn);
        await writeOps(client, ops);
        await client.query('INSERT INTO tms_commit_log (lsn, note) VALUES ($1, $2)', [lsn, Buffer.from(note)]);
        return result;
      }),
    );
    if (++this.commits % PRUNE_EVERY === 0) void this.prune().catch(() => undefined);
    return result;
  }

  /** A row lock on the level's `tms_bulk_load` row, in a transaction left open on a connection of its own. */
  async holdLoad(level: number): Promise<{ release(): Promise<void> }> {
    await this.pool.query('INSERT INTO tms_bulk_load (level) VALUES ($1) ON CONFLICT DO NOTHING', [level]);
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // A long load idles between its statements here for as long as it runs.
      await client.query('SET LOCAL idle_in_transaction_session_timeout = 0');
      await client.query('SELECT 1 FROM tms_bulk_load WHERE level = $1 FOR UPDATE', [level]);
    } catch (error) {
      client.release(true);
      throw error;
    }
    return {
      async release() {
        const broken = await client.query('COMMIT').then(() => false, () => true);
        client.release(broken);
      },
    };
  }

  async loadHeld(level: number): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query('SELECT 1 FROM tms_bulk_load WHERE level = $1 FOR UPDATE SKIP LOCKED', [level]);
      if (rows.length === 1) return false;
      const { rows: exists } = await client.query('SELECT 1 FROM tms_bulk_load WHERE level = $1', [level]);
      return exists.length === 1;
    });
  }

  private async prune(): Promise<void> {
    await this.pool.query(
      `WITH bound AS (SELECT lsn - $1 AS below FROM tms_clock)
       UPDATE tms_clock SET pruned_below = GREATEST(pruned_below, (SELECT below FROM bound))`,
      [KEPT_COMMITS],
    );
    await this.pool.query('DELETE FROM tms_commit_log WHERE lsn < (SELECT pruned_below FROM tms_clock)');
  }
}
