#!/usr/bin/env -S node --max-semi-space-size=64
// The `tms` command (npx tms …): runs the TypeScript CLI through tsx, as `npm start` and `npm run tms` do.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
