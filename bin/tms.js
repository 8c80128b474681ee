#!/usr/bin/env node
// The `tms` command (npx tms …): runs the TypeScript CLI as `npm start` and `npm run tms` do (src/typescript/).
import '../src/typescript/register.mjs';

await import('../src/cli/main.ts');
