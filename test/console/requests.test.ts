// Sending from the console: REST through fetch (a GET body becomes the visible query string), RPCs through
// Connect-Web, errors with every detail decoded, failures that never reached the server, the schema check
// while typing, keyboard-only sending, history, snippets and comparing two timelines.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { call } from '../support/server.ts';
import {
  answersShown, chooseOperation, openConsole, resetConsole, response, responseJson, sendAndWait, setBody, startConsoleFixture,
  stopConsoleFixture, useKey, waitForAnswer, createAccount, type ConsoleFixture,
} from './support.ts';

type Ctx = ConsoleFixture & { page: Page; problems: string[] };
const requests = suite<Ctx>('console: sending requests and reading answers');
requests.before(async (ctx) => {
  Object.assign(ctx, await startConsoleFixture());
  const context = await ctx.browser.newContext();
  Object.assign(ctx, await openConsole(context, ctx.server.url));
  await useKey(ctx.page, ctx.server.adminKey);
});
requests.after.each(({ page }) => resetConsole(page));
requests.after((ctx) => stopConsoleFixture(ctx));

requests('a GET body becomes the query string, shown before sending, and is sent that way (nothing dropped)', async ({ page }) => {
  await chooseOperation(page, 'GET /v1/search-events');
  const notice = page.getByRole('note', { name: 'Query string' });
  await notice.waitFor();
  assert.match(await notice.innerText(), /\/v1\/search-events\?location=Paris%2C\+France&time_range=1789-01-01T00%3A00%3A00Z%2F1799-12-31T23%3A59%3A59Z/);
  const sent = page.waitForRequest((r) => r.url().includes('/v1/search-events'));
  assert.is(await sendAndWait(page), '200 OK');
  const request = await sent;
  assert.is(request.method(), 'GET');
  assert.is(new URL(request.url()).searchParams.get('location'), 'Paris, France');
  assert.is(new URL(request.url()).searchParams.get('time_range'), '1789-01-01T00:00:00Z/1799-12-31T23:59:59Z');
  const answer = await responseJson(page);
  assert.ok(answer.events.every((e: { location: string }) => e.location.includes('Paris')));
  const line = await response(page).innerText();
  assert.match(line, /\d+(\.\d+)? ms/, 'elapsed time');
  assert.match(line, /\d+(\.\d+)? (B|KiB)/, 'size');
  await response(page).getByRole('tab', { name: /Headers/ }).click();
  const headers = await response(page).getByRole('table', { name: 'Response headers' }).innerText();
  assert.match(headers, /x-request-id/);
  assert.match(headers, /content-type\s+application\/json/);
  await response(page).getByRole('tab', { name: 'Body' }).click();
});

requests('an error shows its code, message and every field violation as a table of field and problem', async ({ page }) => {
  await chooseOperation(page, 'POST /v1/manipulate-event');
  await setBody(page, JSON.stringify({ event_id: 'storming-of-the-bastille', new_outcome: { description: 'x', changes: [{ action: 'negotiate', time: 'yesterday' }] }, timeline_id: 7 }));
  assert.is(await sendAndWait(page), '400 Bad Request');
  const error = response(page).getByLabel('Error');
  assert.match(await error.innerText(), /invalid_argument/);
  const table = response(page).getByRole('table', { name: 'Field violations' });
  const rows = await table.getByRole('row').allInnerTexts();
  assert.ok(rows.some((row) => /new_outcome\.changes\[0\]\.time\s+.*ISO 8601/.test(row)), rows.join('\n'));
  assert.ok(rows.some((row) => /timeline_id\s+expected string, got number/.test(row)), rows.join('\n'));
});

requests('an RPC goes through Connect-Web to /tms.v1.<Service>/<Method>; its errors are decoded the same way', async ({ page }) => {
  await chooseOperation(page, 'RPC SearchEvents', 'EventService');
  assert.is(await page.getByRole('textbox', { name: 'Path' }).inputValue(), '/tms.v1.EventService/SearchEvents');
  const sent = page.waitForRequest((r) => r.url().endsWith('/tms.v1.EventService/SearchEvents'));
  assert.is(await sendAndWait(page), 'OK');
  const request = await sent;
  assert.is(request.method(), 'POST');
  assert.match(String(request.headers()['content-type']), /^application\/json/);
  assert.match(String(request.headers()['connect-protocol-version']), /^1$/);
  assert.ok((await responseJson(page)).events.length > 0);

  await setBody(page, JSON.stringify({ location: 'Paris', time_range: 'the 1790s' }));
  assert.is(await sendAndWait(page), 'invalid_argument');
  const rows = await response(page).getByRole('table', { name: 'Field violations' }).getByRole('row').allInnerTexts();
  assert.ok(rows.some((row) => /^time_range\s+/.test(row)), rows.join('\n'));
});

requests('failures that never reached an answer are named: refused methods, network errors, timeouts', async ({ page }) => {
  await chooseOperation(page, 'GET /v1/timelines');
  await page.getByRole('combobox', { name: 'Method' }).fill('TRACE');
  assert.is(await sendAndWait(page), 'Not sent');
  assert.match(await response(page).innerText(), /do not let a page send TRACE/);

  await chooseOperation(page, 'GET /v1/timelines');
  await page.route('**/v1/timelines**', (route) => route.abort('connectionrefused'));
  assert.is(await sendAndWait(page), 'Network error');
  assert.match(await response(page).innerText(), /did not complete/);
  await page.unroute('**/v1/timelines**');

});

requests('a request with no answer within 30 s is shown as timed out', async ({ server, browser }) => {
  // A page of its own: the fake clock stays with it.
  const context = await browser.newContext();
  const { page } = await openConsole(context, server.url);
  await useKey(page, server.adminKey);
  await chooseOperation(page, 'GET /v1/timelines');
  await page.route('**/v1/timelines**', () => undefined); // never answered
  await page.clock.install();
  const before = await answersShown(page);
  const sent = page.waitForRequest((r) => r.url().includes('/v1/timelines'));
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await sent;
  await page.clock.runFor(31_000);
  assert.is(await waitForAnswer(page, before), 'Timed out after 30 s');
  await context.close();
});

requests('the body is checked against the operation\'s schema while typing, and field names complete', async ({ page }) => {
  await chooseOperation(page, 'POST /v1/create-timeline');
  await setBody(page, '{\n  "base_timeline_id": "primary",\n  "descriptio": "typo"\n}');
  const editor = page.getByRole('textbox', { name: 'Body' });
  const marked = page.locator('.cm-lintRange-error').first();
  await marked.waitFor();
  assert.is(await marked.innerText(), '"descriptio"', 'the unknown field itself is underlined');
  await marked.hover();
  const tooltip = page.locator('.cm-tooltip-lint');
  await tooltip.waitFor();
  assert.match(await tooltip.innerText(), /descriptio: unknown field/);

  await setBody(page, '{\n  \n}');
  await page.locator('.cm-line').nth(1).click();
  await editor.press('Control+Space');
  const options = page.locator('.cm-tooltip-autocomplete li');
  await options.first().waitFor();
  const labels = await options.allInnerTexts();
  assert.ok(labels.some((l) => l.includes('base_timeline_id')) && labels.some((l) => l.includes('description')), labels.join(','));
  await page.keyboard.press('Escape');

  await chooseOperation(page, 'POST /v1/manipulate-event');
  await setBody(page, '{\n  "event_id": "storming-of-the-bastille",\n  "new_outcome": { "description": "d", "changes": [{ "action": "bless", "time": "1789-07-14T10:00:00Z", "actio": "a" }] }\n}');
  await marked.waitFor();
  await page.mouse.move(0, 0);
  await marked.hover();
  await tooltip.waitFor();
  const nested = await tooltip.innerText();
  assert.match(nested, /new_outcome\.changes\[0\]\.actio: unknown field/, `the path as the server writes it: ${nested}`);
});

requests('keyboard only: filter, choose an operation and send with Ctrl+Enter', async ({ page }) => {
  await page.getByRole('searchbox', { name: 'Filter operations' }).focus();
  await page.keyboard.type('check-paradox');
  await page.keyboard.press('Tab');
  const focused = await page.evaluate(() => document.activeElement?.textContent);
  assert.match(String(focused), /\/v1\/check-paradox/);
  await page.keyboard.press('Enter');
  assert.is(await page.getByRole('textbox', { name: 'Path' }).inputValue(), '/v1/check-paradox');
  const before = await answersShown(page);
  await page.keyboard.press('Control+Enter');
  assert.is(await waitForAnswer(page, before), '200 OK', await response(page).innerText());
  assert.is(await answersShown(page), before + 1, 'sent once, not twice');
  await page.getByRole('textbox', { name: 'Body' }).click();
  await page.keyboard.press('Control+Enter');
  assert.is(await waitForAnswer(page, before + 1), '200 OK', 'also from inside the editor');
});

requests('Ctrl+Enter straight after choosing an operation sends that operation, not the one shown before', async ({ page }) => {
  await chooseOperation(page, 'POST /v1/create-timeline');
  const filter = page.getByRole('searchbox', { name: 'Filter operations' });
  await filter.fill('check-paradox');
  const before = await answersShown(page);
  const sent = page.waitForRequest((r) => new URL(r.url()).pathname.startsWith('/v1/'));
  const option = page.getByRole('list', { name: 'Operations' }).getByRole('button', { name: 'GET /v1/check-paradox', exact: true });
  // Chosen and sent within one task of the page, before it paints again.
  await option.evaluate(async (button) => {
    (button as HTMLElement).click();
    await new Promise((resolve) => setTimeout(resolve, 0));
    document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', ctrlKey: true, bubbles: true, cancelable: true }));
  });
  const request = await sent;
  assert.is(`${request.method()} ${new URL(request.url()).pathname}`, 'GET /v1/check-paradox');
  assert.is(await waitForAnswer(page, before), '200 OK', await response(page).innerText());
});

requests('Ctrl+Enter while a request is under way sends nothing more, from the page or the editor, as the Send button is disabled', async ({ page }) => {
  await chooseOperation(page, 'GET /v1/timelines');
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const sent: string[] = [];
  await page.route('**/v1/timelines**', async (route) => {
    sent.push(route.request().url());
    await held;
    await route.continue();
  });
  const before = await answersShown(page);
  const first = page.waitForRequest((r) => r.url().includes('/v1/timelines'));
  await page.keyboard.press('Control+Enter');
  await first;
  assert.is(await page.getByRole('button', { name: 'Send', exact: true }).getAttribute('aria-disabled'), 'true', 'Send is disabled while sending');
  await page.keyboard.press('Control+Enter');
  await page.getByRole('textbox', { name: 'Body' }).click();
  await page.keyboard.press('Control+Enter');
  release();
  assert.is(await waitForAnswer(page, before), '200 OK');
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)));
  assert.is(sent.length, 1, sent.join('\n'));
  assert.is(await answersShown(page), before + 1);
});

requests('history restores a request in one click; snippets give curl, buf curl, grpcurl and TypeScript with $TMS_TOKEN', async ({ page }) => {
  await chooseOperation(page, 'GET /timelines');
  assert.is(await sendAndWait(page), '200 OK');
  await chooseOperation(page, 'RPC CheckParadox', 'ParadoxService');
  await page.getByRole('tab', { name: 'History' }).click();
  const history = page.getByRole('list', { name: 'History' });
  await history.getByRole('button').first().waitFor();
  assert.match(await history.getByRole('button').first().innerText(), /200\s+GET\s+\/timelines/);
  await history.getByRole('button').first().click();
  assert.is(await page.getByRole('textbox', { name: 'Path' }).inputValue(), '/timelines');
  await page.getByRole('tab', { name: 'Operations' }).click();

  await page.getByRole('tab', { name: 'Snippets' }).click();
  const curl = await page.getByLabel('curl snippet').innerText();
  assert.match(curl, /curl -sS -X GET 'http:\/\/127\.0\.0\.1:\d+\/timelines'/);
  assert.match(curl, /Authorization: Bearer \$TMS_TOKEN/);
  await chooseOperation(page, 'RPC SearchEvents', 'EventService');
  assert.match(await page.getByLabel('buf curl snippet').innerText(), /buf curl --protocol connect[\s\S]*\/tms\.v1\.EventService\/SearchEvents/);
  assert.match(await page.getByLabel('grpcurl snippet').innerText(), /grpcurl -plaintext[\s\S]*tms\.v1\.EventService\/SearchEvents/);
  const ts = await page.getByLabel('TypeScript (Connect client) snippet').innerText();
  assert.match(ts, /createClient\(EventService, transport\)/);
  assert.match(ts, /client\.searchEvents\(request\)/);
  assert.match(ts, /process\.env\.TMS_TOKEN/);
});

requests('ids of a listed item are not pre-filled: revoking names a key this console made, never the last one an admin listed', async ({ server, page }) => {
  await createAccount(server, 'listed-bob', 'listed-bob-password-1');
  const bobKey = await call(server, 'POST', '/v1/keys', { body: { name: 'bob key', account: 'listed-bob', scopes: ['read'] } });
  assert.is(bobKey.status, 200, bobKey.text);
  await chooseOperation(page, 'GET /v1/keys');
  await setBody(page, '{"page_size": 100}');
  assert.is(await sendAndWait(page), '200 OK');
  assert.match(await response(page).innerText(), new RegExp(bobKey.json.key_id));
  const path = page.getByRole('textbox', { name: 'Path' });
  await chooseOperation(page, 'DELETE /v1/keys/{key_id}');
  assert.is(await path.inputValue(), '/v1/keys/key_REPLACE_WITH_key_id', 'a key from the list is not pre-filled');

  await chooseOperation(page, 'POST /v1/keys');
  assert.is(await sendAndWait(page), '200 OK');
  const made = (await responseJson(page)).key_id as string;
  await chooseOperation(page, 'DELETE /v1/keys/{key_id}');
  assert.is(await path.inputValue(), `/v1/keys/${made}`, 'the key just made is');
});

requests('compare: the same request on primary and on a branch, side by side, with a structural diff', async ({ server, page }) => {
  const branch = await call(server, 'POST', '/v1/create-timeline', { body: { base_timeline_id: 'primary', description: 'compare' } });
  const timelineId = branch.json.timeline_id as string;
  const changed = await call(server, 'POST', '/v1/manipulate-event', {
    body: { timeline_id: timelineId, event_id: 'storming-of-the-bastille', new_outcome: { description: 'A peaceful surrender.', changes: [{ action: 'negotiate', time: '1789-07-14T10:00:00Z' }] } },
  });
  assert.is(changed.status, 200, changed.text);
  await chooseOperation(page, 'GET /v1/search-events');
  await page.getByRole('tab', { name: 'Compare' }).click();
  const compare = page.getByRole('region', { name: 'Compare' });
  await compare.getByLabel('Timeline A').fill('primary');
  await compare.getByLabel('Timeline B').fill(timelineId);
  await compare.getByRole('button', { name: 'Compare' }).click();
  const table = compare.getByRole('table', { name: 'Differences' });
  await table.waitFor();
  const rows = await table.getByRole('row').allInnerTexts();
  assert.ok(rows.some((row) => row.includes('events[0].description') && row.includes('A peaceful surrender.')), rows.join('\n'));
  assert.ok(rows.some((row) => row.includes('events[0].timeline_id') && row.includes(timelineId)), rows.join('\n'));
  assert.match(await compare.getByLabel('Answer B').innerText(), /A peaceful surrender/);
  assert.match(await compare.getByRole('status').innerText(), /^\d+ differences?$/);

  // A request that takes no timeline fails alike on both: that is not "the same".
  await chooseOperation(page, 'GET /v1/timelines');
  await page.getByRole('tab', { name: 'Compare' }).click();
  await compare.getByLabel('Timeline A').fill('primary');
  await compare.getByLabel('Timeline B').fill(timelineId);
  await compare.getByRole('button', { name: 'Compare' }).click();
  await compare.getByText(/^Both answers are errors \(A: 400 Bad Request; B: 400 Bad Request\)/).waitFor();
  assert.not.match(await compare.getByRole('status').innerText(), /the same/);
});

requests('a path on another origin is not sent, and says why; the operation list says it is loading until it has come', async ({ page, browser, server }) => {
  const before = await answersShown(page);
  await page.getByRole('textbox', { name: 'Path' }).fill('//example.com/v1/timelines');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  assert.is(await waitForAnswer(page, before), 'Not sent');
  assert.match(await response(page).innerText(), /The console sends requests to this service only/);

  const context = await browser.newContext();
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await context.route('**/openapi.json', async (route) => {
    await held;
    await route.continue();
  });
  const slow = await context.newPage();
  await slow.goto(`${server.url}/console`);
  await slow.getByText('Loading operations…').waitFor();
  release();
  await slow.getByRole('list', { name: 'Operations' }).getByRole('button').first().waitFor();
  assert.is(await slow.getByText('Loading operations…').count(), 0);
  await context.close();
});

requests('where the page may not use the clipboard, Copy selects the snippet and says to press Ctrl+C', async ({ browser, server }) => {
  const context = await browser.newContext();
  await context.addInitScript(() => Object.defineProperty(navigator, 'clipboard', { value: undefined }));
  const { page } = await openConsole(context, server.url);
  await page.getByRole('tab', { name: 'Snippets' }).click();
  await page.getByRole('button', { name: 'Copy curl' }).click();
  await page.getByText('This page may not copy: the text is selected, press Ctrl+C').waitFor();
  const selected = await page.evaluate(() => window.getSelection()?.toString());
  assert.is(selected, await page.getByLabel('curl snippet').innerText());
  await context.close();
});

requests('no console errors and no CSP violations along the way', ({ problems }) => {
  assert.equal(problems.filter((p) => !/net::ERR_CONNECTION_REFUSED|Failed to load resource/.test(p)), []);
});

requests.run();
