// `serve` is the default command; a mistyped command is refused as unknown, with the command it was likely
// meant to be, rather than read as an argument to serve.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { refusal, tms } from '../support/cli.ts';

test('a mistyped command is unknown, and the nearest commands are suggested', async () => {
  assert.is(refusal(await tms(['servr'])), "error: unknown command 'servr' (did you mean serve?); see tms --help");
  assert.is(refusal(await tms(['genrate', '--events', '10'])), "error: unknown command 'genrate' (did you mean generate?); see tms --help");
  assert.is(refusal(await tms(['frobnicate'])), "error: unknown command 'frobnicate'; see tms --help");
});

test('commands, options and help still reach commander', async () => {
  const help = await tms(['serve', '--help']);
  assert.is(help.code, 0, help.stderr);
  assert.match(help.stdout, /^Usage: tms serve \[options\]/);
  assert.match(help.stdout.replace(/\s+/g, ' '), '--port <port> port for every protocol (env TMS_PORT; default 8080)', 'each setting shows its default');
  const version = await tms(['--version']);
  assert.is(version.code, 0, version.stderr);
  assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
  const unknownOption = await tms(['--no-such-option']);
  assert.is(unknownOption.code, 1);
  assert.match(unknownOption.stderr, /unknown option '--no-such-option'/);
});

test.run();
