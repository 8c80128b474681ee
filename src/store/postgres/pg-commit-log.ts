import type pg from 'pg';
import type { Commit, CommitBatch, CommitLog, LogHead } from '../commit-log.ts';
import type { WriteOp } from '../ordered-kv.ts';
import { writeOps } from './pg-key-value-space.ts';
import { inTransaction } from './transaction.ts';

interface Member<T> {
  build: (lsn: () => number, head: LogHead) => Promise<CommitBatch<T>>;
  queued?: () => void;
  resolve(result: T): void;
  reject(error: unknown): void;
}

/** Commits kept for nodes to replay; one that falls further behind reloads its state instead. */
const KEPT_COMMITS = 100_000;
const PRUNE_EVERY = 1_000;

/**
 * The clock's row as a `LogHead`. The epoch is made with the database and the oid with the clock's table, so
 * neither a database made again nor one restored from a dump (which makes its tables again) reads as the one
 * a node loaded, whatever its LSN.
 */
const HEAD = "SELECT lsn, epoch || '.' || 'tms_clock'::regclass::oid::text AS epoch FROM tms_clock";

const logHead = (row: { lsn: string; epoch: string }): LogHead => ({ lsn: Number(row.lsn), epoch: row.epoch });

/**
 * The commit log of a store that many nodes share: `tms_clock` holds the newest LSN, and each commit is one
 * transaction that first locks that row (so commits run one at a time across all nodes, in LSN order), then
 * writes the batches of every commit that waited on this node, each under the next LSN, with their notes to
 * `tms_commit_log`, and moves the clock to the last of them. Notes below
 * `tms_clock.pruned_below` are deleted.
 */
export class PgCommitLog implements CommitLog {
  readonly shared = true;
  /** Commits waiting for the next transaction: one is in flight per node, so waiting holds no connection. */
  private waiting: Member<unknown>[] = [];
  private committing = false;
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

  async head(): Promise<LogHead> {
    const { rows } = await this.readPool.query<{ lsn: string; epoch: string }>(HEAD);
    return logHead(rows[0]!);
  }

  async since(lsn: number): Promise<Commit[] | undefined> {
    const { rows } = await this.readPool.query<{ lsn: string; note: Buffer }>('SELECT lsn, note FROM tms_commit_log WHERE lsn > $1 ORDER BY lsn', [lsn]);
    // Read after the commits: if pruning ran meanwhile, some may be missing.
    const { rows: clock } = await this.readPool.query<{ pruned_below: string }>('SELECT pruned_below FROM tms_clock');
    if (lsn + 1 < Number(clock[0]!.pruned_below)) return undefined;
    return rows.map((row) => ({ lsn: Number(row.lsn), note: row.note }));
  }

  /** `queued` is called once the member's batch is built in its transaction (a later member goes in the next one). */
  commit<T>(build: (lsn: () => number, head: LogHead) => Promise<CommitBatch<T>>, queued?: () => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ build, resolve, reject, queued } as Member<unknown>);
      if (!this.committing) void this.commitGroups();
    });
  }

  /** One transaction at a time per node, each taking every commit that waited meanwhile (group commit). */
  private async commitGroups(): Promise<void> {
    this.committing = true;
    while (this.waiting.length > 0) {
      const group = this.waiting;
      this.waiting = [];
      await this.commitGroup(group);
    }
    this.committing = false;
  }

  /**
   * Locks the clock, lets each member build in turn on the LSN after the one before, and writes every batch
   * and note in the one transaction. A member whose build throws is left out and told so; the rest commit
   * together, or all fail together.
   */
  private async commitGroup(group: Member<unknown>[]): Promise<void> {
    let outcomes: ({ ok: true; result: unknown } | { ok: false; error: unknown })[] = [];
    try {
      await inTransaction(this.pool, async (client) => {
        outcomes = [];
        const { rows } = await client.query<{ lsn: string; epoch: string }>(`${HEAD} FOR UPDATE`);
        const head = logHead(rows[0]!);
        let lsn = head.lsn;
        const ops: WriteOp[] = [];
        const lsns: number[] = [];
        const notes: Buffer[] = [];
        for (const member of group) {
          const next = lsn + 1;
          try {
            const batch = await member.build(() => next, head);
            ops.push(...batch.ops);
            lsns.push(next);
            notes.push(Buffer.from(batch.note));
            lsn = next;
            outcomes.push({ ok: true, result: batch.result });
            member.queued?.();
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
        if (lsns.length === 0) return;
        await writeOps(client, ops);
        await client.query('INSERT INTO tms_commit_log (lsn, note) SELECT * FROM unnest($1::bigint[], $2::bytea[])', [lsns, notes]);
        await client.query('UPDATE tms_clock SET lsn = $1', [lsn]);
      });
    } catch (error) {
      for (const member of group) member.reject(error);
      return;
    }
    group.forEach((member, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) member.resolve(outcome.result);
      else member.reject(outcome.error);
    });
    this.commits += outcomes.length;
    if (this.commits >= PRUNE_EVERY) {
      this.commits = 0;
      void this.prune().catch(() => undefined);
    }
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
