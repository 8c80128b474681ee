// The worker thread's entry point, in plain JavaScript on purpose: a worker has the project's TypeScript hooks
// only when its parent was started with `--import` (bin/tms.js registers them from code), and Node 24's own type
// stripping cannot run these files (parameter properties). So the hooks are registered here, in any case; where
// `--import` already ran them in this thread, this is the same module and nothing runs twice.
import '../typescript/register.mjs';

const worker = await import('./worker.ts');

export default worker.default;
