/**
 * The global log sequence number: each batch that writes versions takes the next one. Visibility is per
 * level (see TimelineState.committedLsn): a level's batches are serialised by its writer queue, so at most
 * one is in flight and everything at or below the level's last committed LSN is durable.
 */
export class LsnClock {
  constructor(private allocated: number) {}

  next(): number {
    this.allocated += 1;
    return this.allocated;
  }
}
