// Requests saved from the console live on the server, per account: they survive a reload, show on another
// browser, can be shared by a link that only logged-in users can open, unshared and deleted; others can
// never see or touch them; names render as text, never as markup.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { BrowserContext, Page } from 'playwright-core';
import { call } from '../support/server.ts';
import { chooseOperation, createAccount, logIn, loginDialog, openConsole, sendAndWait, startConsoleFixture, stopConsoleFixture, type ConsoleFixture, logInFromHeader, heldToken } from './support.ts';

const MARKUP_NAME = '<img src=x onerror="window.__pwned=1"><b>Paris</b> in the 1790s';
const BOB = { username: 'bob', password: 'bob has a long password' };

type Ctx = ConsoleFixture & { alice: BrowserContext; alicePage: Page; bob: BrowserContext; shareLink: string; savedId: string };
const saved = suite<Ctx>('console: save, reload, share, unshare, delete across two accounts');
saved.before(async (ctx) => {
  Object.assign(ctx, await startConsoleFixture());
  await createAccount(ctx.server, BOB.username, BOB.password);
  ctx.alice = await ctx.browser.newContext();
  ctx.bob = await ctx.browser.newContext();
});
saved.after((ctx) => stopConsoleFixture(ctx));

const savedList = (page: Page) => page.getByRole('list', { name: 'Saved', exact: true });

saved('"Save" asks for a name; the Saved list shows it as text (markup stays text) after a reload and on another browser', async (ctx) => {
  const { page } = await openConsole(ctx.alice, ctx.server.url);
  ctx.alicePage = page;
  await logInFromHeader(page, 'admin', ctx.adminPassword);
  await chooseOperation(page, 'GET /v1/search-events');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Save request' });
  await dialog.getByLabel('Name').fill(MARKUP_NAME);
  await dialog.getByRole('button', { name: 'Save request' }).click();
  await dialog.waitFor({ state: 'hidden' });

  await page.reload();
  await page.getByRole('tab', { name: /^Saved/ }).click();
  const item = savedList(page).getByRole('button', { name: /Paris/ }).first();
  await item.waitFor();
  assert.match(await item.innerText(), /<img src=x onerror="window.__pwned=1"><b>Paris<\/b> in the 1790s/);
  assert.is(await savedList(page).locator('img, b').count(), 0, 'no element was made from the name');
  assert.is(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);

  const other = await ctx.browser.newContext();
  const { page: elsewhere } = await openConsole(other, ctx.server.url);
  await logInFromHeader(elsewhere, 'admin', ctx.adminPassword);
  await elsewhere.getByRole('tab', { name: /^Saved/ }).click();
  await savedList(elsewhere).getByRole('button', { name: /Paris/ }).first().waitFor();
  await other.close();

  const listed = await call(ctx.server, 'GET', '/v1/console/requests', { key: await heldToken(page) });
  assert.is(listed.status, 200, listed.text);
  const [stored] = listed.json.saved_requests;
  ctx.savedId = stored.id;
  assert.is(stored.name, MARKUP_NAME);
  assert.is(stored.method, 'GET');
  assert.is(stored.path, '/v1/search-events');
  assert.not.ok(Object.keys(stored.headers).some((h: string) => /authorization|cookie/i.test(h)), 'no credential was stored');
  assert.not.ok(JSON.stringify(stored).includes(await heldToken(page)));
});

saved('"Share" shows a share link (a fragment); another account must log in to open it, then it is pre-filled, runs, and can be saved as a copy', async (ctx) => {
  const page = ctx.alicePage;
  await savedList(page).getByRole('button', { name: /Paris/ }).first().click();
  await page.getByRole('button', { name: 'Share', exact: true }).click();
  const link = page.getByRole('textbox', { name: 'Share link' });
  await link.waitFor();
  ctx.shareLink = await link.inputValue();
  assert.match(ctx.shareLink, new RegExp(`^${ctx.server.url.replace(/[.]/g, '\\.')}/console#share=shr_[\\w-]{20,}$`));

  const requests: string[] = [];
  const bobPage = await ctx.bob.newPage();
  bobPage.on('request', (r) => requests.push(new URL(r.url()).pathname));
  await bobPage.goto(ctx.shareLink);
  const dialog = loginDialog(bobPage);
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /shared with you/);
  assert.not.ok(requests.some((p) => p.startsWith('/v1/console/')), 'nothing of the shared request is fetched before login');
  assert.not.ok(bobPage.url().includes('share='), 'the token leaves the address bar');
  await logIn(bobPage, BOB.username, BOB.password);
  await bobPage.getByText(/Shared with you by admin/).waitFor();
  assert.is(await bobPage.getByRole('textbox', { name: 'Path' }).inputValue(), '/v1/search-events');
  assert.match(await bobPage.getByRole('textbox', { name: 'Body' }).innerText(), /Paris, France/);
  assert.is(await sendAndWait(bobPage), '200 OK');

  await bobPage.getByRole('button', { name: 'Save a copy' }).click();
  const save = bobPage.getByRole('dialog', { name: 'Save request' });
  assert.is(await save.getByLabel('Name').inputValue(), MARKUP_NAME);
  await save.getByLabel('Name').fill("Bob's copy");
  await save.getByRole('button', { name: 'Save request' }).click();
  await bobPage.getByRole('tab', { name: /^Saved/ }).click();
  await savedList(bobPage).getByRole('button', { name: "GET Bob's copy" }).waitFor();
  assert.is(await savedList(bobPage).getByRole('button', { name: /Paris/ }).count(), 0, "bob's list holds only his own");

  const bobToken = await heldToken(bobPage);
  for (const [method, path] of [['GET', `/v1/console/requests/${ctx.savedId}`], ['DELETE', `/v1/console/requests/${ctx.savedId}`], ['DELETE', `/v1/console/requests/${ctx.savedId}/share`]] as const) {
    const refused = await call(ctx.server, method, path, { key: bobToken });
    assert.is(refused.status, 404, `${method} ${path} by another account`);
    assert.is(refused.json.code, 'not_found');
  }
});

saved('a share link opened in a tab already logged in shows the shared request, even when the operation list arrives after it', async (ctx) => {
  const aliceKey = await heldToken(ctx.alicePage);
  const made = await call(ctx.server, 'POST', '/v1/console/requests', { key: aliceKey, body: { name: 'timelines', method: 'GET', path: '/v1/timelines', headers: {}, body: '' } });
  assert.is(made.status, 200, made.text);
  const id = made.json.saved_request.id as string;
  const shared = await call(ctx.server, 'POST', `/v1/console/requests/${id}/share`, { key: aliceKey });
  assert.is(shared.status, 200, shared.text);
  const link = `${ctx.server.url}/console#share=${shared.json.saved_request.share_token as string}`;
  try {
    await openLinkLoggedIn(ctx, link);
  } finally {
    assert.is((await call(ctx.server, 'DELETE', `/v1/console/requests/${id}`, { key: aliceKey })).status, 200);
  }
});

async function openLinkLoggedIn(ctx: Ctx, link: string): Promise<void> {
  const bobPage = await ctx.bob.newPage();
  await bobPage.goto(`${ctx.server.url}/console`);
  await logInFromHeader(bobPage, BOB.username, BOB.password);
  // The operation list waits until the shared request has been shown.
  let opened = () => {};
  const sharedShown = new Promise<void>((resolve) => (opened = resolve));
  await bobPage.route('**/openapi.json', async (route) => {
    await sharedShown;
    await route.continue();
  });
  // From another page, so that the console starts again (a change of fragment alone would not).
  await bobPage.goto('about:blank');
  await bobPage.goto(link);
  await bobPage.getByText(/Shared with you by admin/).waitFor();
  opened();
  await bobPage.getByRole('list', { name: 'Operations' }).getByRole('button').first().waitFor();
  assert.is(await bobPage.getByRole('textbox', { name: 'Path' }).inputValue(), '/v1/timelines');
  assert.ok(await bobPage.getByText(/Shared with you by admin/).isVisible());
  await bobPage.close();
}

saved('a share link pasted into an open tab opens its request; one whose login is put off, or reloaded, still waits', async (ctx) => {
  const aliceKey = await heldToken(ctx.alicePage);
  const made = await call(ctx.server, 'POST', '/v1/console/requests', { key: aliceKey, body: { name: 'keys', method: 'GET', path: '/v1/keys', headers: {}, body: '' } });
  const id = made.json.saved_request.id as string;
  const shared = await call(ctx.server, 'POST', `/v1/console/requests/${id}/share`, { key: aliceKey });
  const hash = `#share=${shared.json.saved_request.share_token as string}`;
  const path = (page: Page) => page.getByRole('textbox', { name: 'Path' });
  try {
    // Logged in, the link pasted into the same tab: only the fragment changes.
    const open = await ctx.bob.newPage();
    await open.goto(`${ctx.server.url}/console`);
    await logInFromHeader(open, BOB.username, BOB.password);
    await open.evaluate((fragment) => (location.hash = fragment), hash);
    await open.getByText(/Shared with you by admin/).waitFor();
    assert.is(await path(open).inputValue(), '/v1/keys');
    assert.not.ok(open.url().includes('share='), 'the token leaves the address bar');
    await open.close();

    // Not logged in: Cancel, then a reload, and the link still opens once logged in.
    const later = await ctx.bob.newPage();
    await later.goto(`${ctx.server.url}/console${hash}`);
    const dialog = loginDialog(later);
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await later.getByText(/A request shared with you is waiting: log in to open it/).waitFor();
    // Another fragment (the skip link's) is no share link: the waiting one is not met again.
    await later.evaluate(() => (location.hash = '#request'));
    await later.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)));
    assert.not.ok(await dialog.isVisible(), 'the skip link does not reopen the login');
    await later.reload();
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /shared with you/);
    await logIn(later, BOB.username, BOB.password);
    await later.getByText(/Shared with you by admin/).waitFor();
    assert.is(await path(later).inputValue(), '/v1/keys');
    assert.is(await later.evaluate(() => sessionStorage.getItem('tms.console.share')), null, 'once opened, the link waits no more');
    await later.close();
  } finally {
    assert.is((await call(ctx.server, 'DELETE', `/v1/console/requests/${id}`, { key: aliceKey })).status, 200);
  }
});

saved('a slow save: a double click saves once, Ctrl+Enter in the dialog sends nothing behind it; a double click on Delete deletes once', async (ctx) => {
  const page = await ctx.alice.newPage();
  await page.goto(`${ctx.server.url}/console`);
  await logInFromHeader(page, 'admin', ctx.adminPassword);
  await chooseOperation(page, 'GET /v1/timelines');
  const count = async () => (await call(ctx.server, 'GET', '/v1/console/requests', { key: await heldToken(page), body: { page_size: 1000 } })).json.saved_requests.filter((r: { name: string }) => r.name === 'double').length;
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/v1/console/requests', async (route) => {
    if (route.request().method() === 'POST') await held;
    await route.continue();
  });
  const sent: string[] = [];
  page.on('request', (request) => sent.push(`${request.method()} ${new URL(request.url()).pathname}`));
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Save request' });
  await dialog.getByLabel('Name').fill('double');
  await dialog.getByLabel('Name').press('ControlOrMeta+Enter');
  await dialog.getByRole('button', { name: 'Save request' }).dblclick();
  assert.is(await dialog.getByRole('button', { name: 'Saving…' }).getAttribute('aria-disabled'), 'true');
  release();
  await dialog.waitFor({ state: 'hidden' });
  await page.unroute('**/v1/console/requests');
  assert.is(await count(), 1, 'saved once');
  assert.not.ok(sent.includes('GET /v1/timelines'), 'Ctrl+Enter in the dialog sent nothing behind it');

  await page.getByRole('tab', { name: /^Saved/ }).click();
  const asked = page.getByRole('dialog', { name: 'Delete saved request' });
  await savedList(page).getByRole('button', { name: 'Delete double' }).click();
  await asked.getByText('Delete “double” (GET /v1/timelines)? This cannot be undone.').waitFor();
  assert.is(await page.evaluate(() => document.activeElement?.textContent), 'Keep it', 'keeping it is the default');
  await page.keyboard.press('Escape');
  await asked.waitFor({ state: 'hidden' });
  await savedList(page).getByRole('button', { name: 'Delete double' }).click();
  await asked.getByRole('button', { name: 'Keep it' }).click();
  await asked.waitFor({ state: 'hidden' });
  assert.is(await count(), 1, 'Escape and "Keep it" delete nothing');
  assert.not.ok(sent.some((request) => request.startsWith('DELETE ')), 'nor send anything');

  await savedList(page).getByRole('button', { name: 'Delete double' }).dblclick();
  assert.is(await page.getByRole('dialog', { name: 'Delete saved request' }).count(), 1, 'a double click asks once');
  await asked.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByText(/^Deleted “double”/).waitFor();
  assert.is(await count(), 0);
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)));
  assert.is(await page.getByText(/Could not delete/).count(), 0, 'the second click did not report the first one\'s success as a failure');
  await page.close();
});

saved('the saved request shown is named only while the request is it: an edit says so, a history entry drops it', async (ctx) => {
  const made = await call(ctx.server, 'POST', '/v1/console/requests', { key: ctx.server.adminKey, body: { name: 'named', method: 'GET', path: '/v1/timelines', headers: {}, body: '' } });
  assert.is(made.status, 200, made.text);
  const page = await ctx.alice.newPage();
  await page.goto(`${ctx.server.url}/console`);
  await logInFromHeader(page, 'admin', ctx.adminPassword);
  try {
    await chooseOperation(page, 'GET /v1/keys');
    assert.is(await sendAndWait(page), '200 OK');
    await page.getByRole('tab', { name: /^Saved/ }).click();
    await savedList(page).getByRole('button', { name: 'GET named' }).click();
    await page.getByText('Saved request: “named”').waitFor();
    await page.getByRole('textbox', { name: 'Path' }).fill('/v1/timelines?page_size=1');
    await page.getByText('Changed from saved request “named” (not saved)').waitFor();
    await page.getByRole('tab', { name: 'History' }).click();
    await page.getByRole('list', { name: 'History' }).getByRole('button', { name: /\/v1\/keys/ }).first().click();
    assert.is(await page.getByRole('textbox', { name: 'Path' }).inputValue(), '/v1/keys');
    assert.is(await page.getByText(/saved request “named”|Saved request: “named”/).count(), 0);
  } finally {
    assert.is((await call(ctx.server, 'DELETE', `/v1/console/requests/${made.json.saved_request.id as string}`, { key: ctx.server.adminKey })).status, 200);
    await page.close();
  }
});

saved('"Unshare": the old link no longer opens it; "Delete" removes it for good', async (ctx) => {
  const page = ctx.alicePage;
  await page.getByRole('button', { name: 'Unshare' }).click();
  await page.getByRole('textbox', { name: 'Share link' }).waitFor({ state: 'detached' });

  const bobPage = await ctx.bob.newPage();
  await bobPage.goto(ctx.shareLink);
  // A new tab holds no login (the credential is per tab).
  await logIn(bobPage, BOB.username, BOB.password);
  await bobPage.getByText(/This share link no longer works/).waitFor();

  await page.getByRole('tab', { name: /^Saved/ }).click();
  await savedList(page).getByRole('button', { name: /^Delete / }).first().click();
  const asked = page.getByRole('dialog', { name: 'Delete saved request' });
  await asked.getByText(/Its share link stops working too\.|This cannot be undone\./).waitFor();
  await asked.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByText(/^Deleted /).waitFor();
  const listed = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/console/requests' && r.request().method() === 'GET');
  await page.reload();
  assert.is((await listed).status(), 200);
  await page.getByRole('tab', { name: /^Saved/ }).click();
  await savedList(page).getByText(/Nothing saved yet/).waitFor();
  const gone = await call(ctx.server, 'GET', `/v1/console/requests/${ctx.savedId}`, { key: await heldToken(page) });
  assert.is(gone.status, 404);
});

saved.run();
