import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { StoreOpenError } from '../storage.ts';

export interface LeaseOptions {
  /** How long a lease lasts without renewal: a node that died gives way after this (default 15 s). */
  ttlMs?: number;
  /** How long a starting node waits for another node's lease to end before giving up (default 20 s). */
  waitMs?: number;
}

/**
 * The right to serve this database, held by one node at a time. Each node keeps its timelines' indexes and
 * its accounts in memory, so two nodes on one database would each miss the other's writes: a second node
 * waits for the first one's lease to end (a node killed without closing frees it after `ttlMs`).
 */
export class NodeLease {
  readonly nodeId = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private lost = false;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly ttlMs: number,
  ) {}

  static async acquire(pool: pg.Pool, options: LeaseOptions = {}): Promise<NodeLease> {
    const lease = new NodeLease(pool, options.ttlMs ?? 15_000);
    const deadline = Date.now() + (options.waitMs ?? 20_000);
    for (;;) {
      const holder = await lease.tryTake();
      if (holder === undefined) break;
      if (Date.now() >= deadline) {
        throw new StoreOpenError(
          `another tms node (${holder.node_id}) is serving this database, its lease running until ${holder.expires_at.toISOString()}; ` +
            'tms serves a PostgreSQL database from one node at a time: stop that node, or give this one another database',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    lease.timer = setInterval(() => void lease.renew(), Math.max(100, Math.floor(lease.ttlMs / 3)));
    lease.timer.unref();
    return lease;
  }

  /** Why this node may no longer write, once another node has taken the lease over. */
  problem(): string | undefined {
    return this.lost ? 'this node lost its database lease to another node; restart it' : undefined;
  }

  async release(): Promise<void> {
    clearInterval(this.timer);
    await this.pool.query('DELETE FROM tms_node_lease WHERE node_id = $1', [this.nodeId]);
  }

  /** Takes the lease if it is free, expired or already ours; otherwise returns who holds it. */
  private async tryTake(): Promise<{ node_id: string; expires_at: Date } | undefined> {
    const taken = await this.pool.query(
      `INSERT INTO tms_node_lease (node_id, expires_at) VALUES ($1, now() + $2 * interval '1 millisecond')
       ON CONFLICT (one) DO UPDATE SET node_id = EXCLUDED.node_id, expires_at = EXCLUDED.expires_at
       WHERE tms_node_lease.expires_at < now() OR tms_node_lease.node_id = EXCLUDED.node_id
       RETURNING node_id`,
      [this.nodeId, this.ttlMs],
    );
    if (taken.rowCount === 1) return undefined;
    const { rows } = await this.pool.query<{ node_id: string; expires_at: Date }>('SELECT node_id, expires_at FROM tms_node_lease');
    return rows[0] ?? { node_id: 'unknown', expires_at: new Date() };
  }

  private async renew(): Promise<void> {
    try {
      const renewed = await this.pool.query(
        `UPDATE tms_node_lease SET expires_at = now() + $2 * interval '1 millisecond' WHERE node_id = $1`,
        [this.nodeId, this.ttlMs],
      );
      if (renewed.rowCount === 0) this.lost = true;
    } catch {
      // The database is unreachable: the readiness probe reports that; the lease is renewed when it is back.
    }
  }
}
