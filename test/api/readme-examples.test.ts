import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ADMIN_KEY, startTestServer } from '../support/server.ts';

const run = promisify(execFile);
const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

/** The curl commands of the README's first fenced `sh` block under `heading`, as the shell would read them. */
function curlCommands(heading: string): string[] {
  const section = readme.slice(readme.indexOf(heading));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  const commands: string[] = [];
  let pending = '';
  for (const line of block.split('\n')) {
    pending += (pending ? '\n' : '') + line;
    const openQuote = (pending.match(/'/g) ?? []).length % 2 === 1;
    if (openQuote || pending.endsWith('\\')) continue;
    const command = pending.replace(/\\\n/g, ' ').replace(/\s+#[^'"]*$/, '').trim();
    if (command.startsWith('curl ')) commands.push(command);
    pending = '';
  }
  return commands;
}

/** Ids the examples leave as `<placeholder>`: the value an earlier example's response gave. */
function fillPlaceholders(command: string, seen: Map<string, string>): string {
  return command.replace(/<(\w+)>/g, (whole, name: string) => seen.get(name) ?? whole);
}

function remember(value: unknown, seen: Map<string, string>): void {
  if (value === null || typeof value !== 'object') return;
  for (const [key, inner] of Object.entries(value)) {
    if (typeof inner === 'string' && inner !== '' && /_id$|^id$|^share_token$/.test(key) && inner !== 'primary') seen.set(key, inner);
    remember(inner, seen);
  }
}

test('every curl example in the README works, as written, against a fresh start', async () => {
  const server = await startTestServer();
  try {
    const commands = [...curlCommands('## Every documented endpoint'), ...curlCommands('## gRPC, gRPC-Web and Connect')];
    assert.ok(commands.length >= 20, `found the examples (${commands.length})`);
    const seen = new Map<string, string>();
    for (const written of commands) {
      // The manipulation's new event is what revert takes; the README names it new_event_id.
      const command = fillPlaceholders(written, seen);
      assert.not.match(command, /<\w+>/, `every placeholder has a value: ${command}`);
      const { stdout } = await run('bash', ['-c', `${command} -w '\\n%{http_code}'`], {
        env: { ...process.env, TMS: server.url, KEY: ADMIN_KEY },
      });
      const status = Number(stdout.slice(stdout.lastIndexOf('\n') + 1));
      const body = stdout.slice(0, stdout.lastIndexOf('\n'));
      assert.ok(status >= 200 && status < 300, `${status} for ${written}\n${body}`);
      const json = body ? (JSON.parse(body) as Record<string, unknown>) : {};
      remember(json, seen);
      const created = (json['new_event'] as { event_id?: string } | undefined)?.event_id;
      if (created) seen.set('new_event_id', created);
    }
  } finally {
    await server.stop();
  }
});

test.run();
