import { createHash } from 'node:crypto';

/**
 * A seeded generator of standard normal numbers: xoshiro128** for uniform 32-bit words (seeded from a
 * SHA-256 of the key, so any string gives a well-mixed state) and the Box–Muller transform for normals.
 * Deterministic on every platform: the same key always yields the same sequence.
 */
export class SeededNormals {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;
  private spare = Number.NaN;

  constructor(key: string) {
    const digest = createHash('sha256').update(key).digest();
    this.s0 = digest.readUInt32LE(0);
    this.s1 = digest.readUInt32LE(4);
    this.s2 = digest.readUInt32LE(8);
    this.s3 = digest.readUInt32LE(12);
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** Uniform in (0, 1), never 0 (Box–Muller takes its logarithm). */
  uniform(): number {
    const result = Math.imul(rotateLeft(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const shifted = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= shifted;
    this.s3 = rotateLeft(this.s3, 11);
    return (result + 0.5) / 4_294_967_296;
  }

  normal(): number {
    if (!Number.isNaN(this.spare)) {
      const value = this.spare;
      this.spare = Number.NaN;
      return value;
    }
    const radius = Math.sqrt(-2 * Math.log(this.uniform()));
    const angle = 2 * Math.PI * this.uniform();
    this.spare = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  }

  fillNormals(target: Float64Array): Float64Array {
    for (let k = 0; k < target.length; k++) target[k] = this.normal();
    return target;
  }
}

function rotateLeft(value: number, bits: number): number {
  return (value << bits) | (value >>> (32 - bits));
}
