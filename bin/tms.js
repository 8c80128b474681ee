#!/usr/bin/env node
// The `tms` command (npx tms …): runs the TypeScript CLI through tsx, as `npm start` and `npm run tms` do.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
