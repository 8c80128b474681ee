import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type ClientHttp2Session } from 'node:http2';
import { createOnePortServer } from '../../src/server/one-port.ts';

const IDLE_MS = 300;

/** A server whose handler answers `/slow` after 3 idle periods, anything else at once. */
async function started() {
  const server = createOnePortServer(
    (req, res) => {
      const answer = () => res.end('done');
      if (req.url === '/slow') setTimeout(answer, IDLE_MS * 3);
      else answer();
    },
    { idleMs: IDLE_MS },
  );
  const { port } = await server.listen(0, '127.0.0.1');
  return { server, url: `http://127.0.0.1:${port}` };
}

/** When the server closed the session; fails, rather than hangs, if it stays open for 20 idle periods. */
const closed = (session: ClientHttp2Session) =>
  new Promise<number>((resolve, reject) => {
    const open = setTimeout(() => {
      session.destroy();
      reject(new Error(`the session was still open after ${IDLE_MS * 20} ms`));
    }, IDLE_MS * 20);
    session.once('close', () => {
      clearTimeout(open);
      resolve(performance.now());
    });
  });

function get(session: ClientHttp2Session, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path });
    let body = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (body += chunk));
    stream.once('end', () => resolve(body));
    stream.once('error', reject);
    stream.end();
  });
}

test('an HTTP/2 session that sends no request is closed once idle, as an idle HTTP/1.1 connection is', async () => {
  const { server, url } = await started();
  try {
    const opened = performance.now();
    const session = connect(url);
    const at = await closed(session);
    assert.ok(at - opened >= IDLE_MS * 0.9, `not before the idle time (${Math.round(at - opened)} ms)`);
  } finally {
    await server.close(100);
  }
});

test('a stream in flight keeps its session past the idle time; the idle time starts again when the last stream ends', async () => {
  const { server, url } = await started();
  try {
    const session = connect(url);
    const ended = closed(session);
    const started = performance.now();
    assert.is(await get(session, '/slow'), 'done', 'answered after three idle periods, on the same session');
    const answeredAt = performance.now();
    assert.ok(answeredAt - started >= IDLE_MS * 2.9);
    assert.is(await get(session, '/quick'), 'done', 'still open for another request');
    const at = await ended;
    assert.ok(at - answeredAt >= IDLE_MS * 0.9, `idle again only after the last stream (${Math.round(at - answeredAt)} ms)`);
  } finally {
    await server.close(100);
  }
});

test.run();
