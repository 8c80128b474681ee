/**
 * The global log sequence number. Each batch that writes versions takes the next LSN; the watermark is the
 * highest LSN below which every batch has settled, so a read (or a fork cap) at the watermark never sees a
 * batch that is still in flight.
 */
export class LsnClock {
  private allocated: number;
  private readonly inFlight = new Set<number>();

  constructor(start: number) {
    this.allocated = start;
  }

  next(): number {
    this.allocated += 1;
    this.inFlight.add(this.allocated);
    return this.allocated;
  }

  settle(lsn: number): void {
    this.inFlight.delete(lsn);
  }

  get watermark(): number {
    if (this.inFlight.size === 0) return this.allocated;
    let lowest = Infinity;
    for (const lsn of this.inFlight) if (lsn < lowest) lowest = lsn;
    return lowest - 1;
  }
}
