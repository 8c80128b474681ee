// The password-hashing thread's entry point, in plain JavaScript (as src/analysis/worker-entry.mjs, on Node 20 a
// worker does not inherit the parent's module hooks, and this needs nothing from TypeScript).
import { scryptSync } from 'node:crypto';
import { setPriority } from 'node:os';

// On Linux the nice value belongs to the thread (setpriority on pid 0), so only this thread yields the CPU to
// the request thread and LevelDB's. Where the system refuses, hashing runs at normal priority as before.
try {
  setPriority(10);
} catch {
  // not permitted here: keep the default priority
}

/** @param {{ password: string; salt: Uint8Array; length: number; options: import('node:crypto').ScryptOptions }} task */
export default function derive({ password, salt, length, options }) {
  return scryptSync(password, salt, length, options);
}
