// `node --import ./src/typescript/register.mjs file.ts`: runs TypeScript files (see hooks.mjs).
import { register } from 'node:module';
import process from 'node:process';

register('./hooks.mjs', import.meta.url);
process.setSourceMapsEnabled(true);
