import { severityOf } from './paradox-report.ts';
import type { Paradox, ParadoxKind } from './paradox-report.ts';

/**
 * Counts every paradox found and keeps the first `maxListed` of them. Detectors ask `inside` whether a paradox
 * touches the window, then `count`, and build the Paradox object only when `count` says it will be listed,
 * so a timeline with millions of broken links costs counters, not objects.
 */
export class ParadoxCollector {
  readonly paradoxes: Paradox[] = [];
  readonly countsByKind: Record<ParadoxKind, number> = {
    causality_violation: 0,
    orphaned_effect: 0,
    causal_loop: 0,
    anchor_breach: 0,
    self_encounter: 0,
  };
  criticalCount = 0;
  warningCount = 0;
  private readonly maxListed: number;
  private readonly window: Uint8Array | undefined;

  constructor(maxListed: number, window: Uint8Array | undefined) {
    this.maxListed = maxListed;
    this.window = window;
  }

  /** Whether event `index` lies in the window (always, without one). */
  inside(index: number): boolean {
    return this.window === undefined || this.window[index] === 1;
  }

  get windowFlags(): Uint8Array | undefined {
    return this.window;
  }

  get listFull(): boolean {
    return this.paradoxes.length >= this.maxListed;
  }

  /** Counts `howMany` paradoxes of a kind; true when the caller should build and `list` (the first of) them. */
  count(kind: ParadoxKind, howMany = 1): boolean {
    this.countsByKind[kind] += howMany;
    if (severityOf(kind) === 'critical') this.criticalCount += howMany;
    else this.warningCount += howMany;
    return !this.listFull;
  }

  list(paradox: Omit<Paradox, 'severity'>): void {
    if (!this.listFull) this.paradoxes.push({ ...paradox, severity: severityOf(paradox.kind) });
  }

  get total(): number {
    return this.criticalCount + this.warningCount;
  }
}
