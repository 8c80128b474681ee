// /console is served by tms itself: a no-cache page and hashed, immutable assets, all under a strict
// Content-Security-Policy, within the first-load budget.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { gunzipSync } from 'node:zlib';
import { call, startTestServer, type TestServer } from '../support/server.ts';

const BUDGET_BYTES = 300 * 1024;

const serving = suite<{ server: TestServer }>('console: served by tms on its own port and origin');
serving.before(async (ctx) => {
  ctx.server = await startTestServer();
});
serving.after(async (ctx) => {
  await ctx.server?.stop();
});

const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);

serving('GET /console: HTML, no-cache, the strict CSP with a fresh style nonce, nosniff, no referrer, no framing', async ({ server }) => {
  const pages = [await call(server, 'GET', '/console', { key: null }), await call(server, 'GET', '/console/', { key: null })];
  const nonces: string[] = [];
  for (const page of pages) {
    assert.is(page.status, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.is(page.headers['cache-control'], 'no-cache');
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /(^|; )script-src 'self'(;|$)/);
    assert.match(csp, /(^|; )connect-src 'self'(;|$)/);
    assert.match(csp, /(^|; )frame-ancestors 'none'(;|$)/);
    assert.match(csp, /(^|; )default-src 'none'(;|$)/);
    assert.not.match(csp, /unsafe-inline|unsafe-eval/);
    const nonce = /style-src 'self' 'nonce-([A-Za-z0-9+/=]{22,})'/.exec(csp)?.[1];
    assert.ok(nonce, csp);
    assert.ok(page.text.includes(`content="${nonce}"`), 'the page carries the nonce its CSP allows');
    nonces.push(nonce!);
    assert.is(page.headers['x-content-type-options'], 'nosniff');
    assert.is(page.headers['referrer-policy'], 'no-referrer');
    assert.is(page.headers['x-frame-options'], 'DENY');
    assert.not.match(page.text, /<script>|<script [^>]*>[^<]+<\/script>|https?:\/\//, 'no inline script, nothing from another origin');
  }
  assert.is.not(nonces[0], nonces[1], 'a nonce is never reused');
});

serving('assets: hashed names, immutable for a year, gzip when asked, the same CSP and nosniff; HEAD answers headers only', async ({ server }) => {
  const page = await call(server, 'GET', '/console', { key: null });
  const assets = assetsOf(page.text);
  assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), assets.join(' '));
  for (const path of assets) {
    assert.match(path, /-[A-Z0-9]{8}\.(js|css)$/, 'content hash in the name');
    const plain = await call(server, 'GET', path, { key: null });
    assert.is(plain.status, 200, path);
    assert.is(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.is(plain.headers['x-content-type-options'], 'nosniff');
    assert.match(String(plain.headers['content-security-policy']), /script-src 'self'/);
    assert.match(String(plain.headers['content-type']), path.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
    const head = await call(server, 'HEAD', path, { key: null });
    assert.is(head.status, 200);
    assert.is(head.text, '');
    assert.is(head.headers['content-length'], plain.headers['content-length']);
  }
  const again = await call(server, 'GET', assets[0]!, { key: null, headers: { 'if-none-match': String((await call(server, 'GET', assets[0]!, { key: null })).headers['etag']) } });
  assert.is(again.status, 304, 'revalidation of an unchanged asset');
});

serving(`first load (page, entry script, its static imports, stylesheet) is at most ${BUDGET_BYTES / 1024} KiB gzipped`, async ({ server }) => {
  const page = await call(server, 'GET', '/console', { key: null });
  let total = Buffer.byteLength(page.text);
  const sizes: string[] = [];
  for (const path of assetsOf(page.text)) {
    const res = await fetch(`${server.url}${path}`, { headers: { 'accept-encoding': 'gzip' } });
    assert.is(res.status, 200);
    // fetch decodes; the bytes on the wire are the content-length of the gzipped answer.
    assert.is(res.headers.get('content-encoding'), 'gzip', path);
    const wire = Number(res.headers.get('content-length'));
    const raw = await call(server, 'GET', path, { key: null, headers: { 'accept-encoding': 'gzip' } });
    assert.is(Number(raw.headers['content-length']), wire);
    total += wire;
    sizes.push(`${path}: ${(wire / 1024).toFixed(1)} KiB`);
  }
  console.log(`console first load: ${(total / 1024).toFixed(1)} KiB gzipped (${sizes.join(', ')})`);
  assert.ok(total <= BUDGET_BYTES, `${total} bytes > ${BUDGET_BYTES}`);
});

serving('gzip answers decode to the same bytes as the plain ones', async ({ server }) => {
  const page = await call(server, 'GET', '/console', { key: null });
  const path = assetsOf(page.text).find((a) => a.endsWith('.js'))!;
  const plain = await fetch(`${server.url}${path}`, { headers: { 'accept-encoding': 'identity' } });
  const plainBytes = Buffer.from(await plain.arrayBuffer());
  const zipped = await new Promise<Buffer>((resolve, reject) => {
    import('node:http').then(({ get }) =>
      get(`${server.url}${path}`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks)));
      }).on('error', reject),
    );
  });
  assert.ok(gunzipSync(zipped).equals(plainBytes));
});

serving('unknown console files are 404 in the error JSON; other methods 405 with Allow; no credentials needed for any of it', async ({ server }) => {
  const missing = await call(server, 'GET', '/console/assets/nope-AAAAAAAA.js', { key: null });
  assert.is(missing.status, 404);
  assert.is(missing.json.code, 'not_found');
  assert.match(missing.json.message, /\/console\/assets\/nope-AAAAAAAA\.js/);
  const traversal = await call(server, 'GET', '/console/assets/..%2F..%2Fpackage.json', { key: null });
  assert.is(traversal.status, 404);
  const post = await call(server, 'POST', '/console', { key: null, body: {} });
  assert.is(post.status, 405);
  assert.is(post.headers['allow'], 'GET, HEAD');
  assert.is(post.json.code, 'unimplemented');
});

serving.run();
