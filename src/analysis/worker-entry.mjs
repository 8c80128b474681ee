// The worker thread's entry point, in plain JavaScript on purpose: on Node 20 a worker does not inherit the
// parent's module hooks (nodejs/node#47747), so a .ts entry fails with ERR_UNKNOWN_FILE_EXTENSION. Where the
// runtime cannot load TypeScript itself (no process.features.typescript, i.e. before Node 22.10), the project's
// hooks are registered in this thread first (src/typescript/), then the real worker is loaded.
import process from 'node:process';

if (!process.features.typescript) await import('../typescript/register.mjs');
const worker = await import('./worker.ts');

export default worker.default;
