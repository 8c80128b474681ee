/**
 * Anchor stability checks, each anchor's noise simulated once. A check scales the anchor's own unit noise by its
 * conditions (src/anchors/stability.ts); that noise depends on the anchor's id and accuracy alone, so it is kept,
 * bounded in bytes, and every later check or adjustment of the anchor is arithmetic on this thread. Checks of
 * one anchor that arrive while its noise is simulated share that simulation.
 */
import type { ClockSimulation } from '../anchors/clock-simulation.ts';
import { computeAnchorStability } from '../anchors/stability.ts';
import type { AnchorStability, AnchorStabilityInput } from '../anchors/stability.ts';
import { MeteredCache, stringBytes, type CacheCounts } from '../store/metered-cache.ts';
import type { AnalysisPool } from './pool.ts';

/** About 9 000 anchors' noise. */
export const DEFAULT_ANCHOR_NOISE_CACHE_BYTES = 8 * 1024 * 1024;

/**
 * The figures (a few numbers and the Allan points), the key, and the cache's and the promise's bookkeeping:
 * 5 000 microsecond anchors' entries held 864–872 bytes each in the heap; this charges 904.
 */
const noiseBytes = (key: string, noise: ClockSimulation): number => stringBytes(key) + 560 + 64 * noise.allan.length;

export class AnchorStabilityChecker {
  private readonly noise: MeteredCache<string, Promise<ClockSimulation>>;

  constructor(
    private readonly pool: AnalysisPool,
    maxBytes = DEFAULT_ANCHOR_NOISE_CACHE_BYTES,
  ) {
    this.noise = new MeteredCache('anchor_noise', maxBytes);
  }

  async check(input: AnchorStabilityInput): Promise<AnchorStability> {
    const key = `${input.accuracy}\u0000${input.anchorId}`;
    let noise = this.noise.get(key);
    if (!noise) {
      noise = this.pool.simulateUnitNoise(input.anchorId, input.accuracy);
      this.noise.setPending(key, noise, noise, (settled) => noiseBytes(key, settled));
    }
    return computeAnchorStability(input, await noise);
  }

  counts(): CacheCounts {
    return this.noise.counts();
  }
}
