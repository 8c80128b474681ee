// The worker thread's entry point, in plain JavaScript on purpose: on Node 20 a worker does not inherit the
// parent's `--import tsx` loader hooks (nodejs/node#47747), so a .ts entry fails with
// ERR_UNKNOWN_FILE_EXTENSION. Where the runtime cannot load TypeScript itself (no process.features.typescript,
// i.e. before Node 22.10), register tsx in this thread first, then load the real worker.
import process from 'node:process';

if (!process.features.typescript) {
  const { register } = await import('tsx/esm/api');
  register();
}
const worker = await import('./worker.ts');

export default worker.default;
