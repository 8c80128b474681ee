// The console asks for a login when a request needs one (or the session expired), sends the waiting
// request once logged in, keeps the dialog open on a wrong password, and ends the session on "Log out".
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call } from '../support/server.ts';
import {
  answersShown, chooseOperation, logIn, loginDialog, openConsole, responseJson, sendAndWait, setBody, startConsoleFixture, statusOf,
  stopConsoleFixture, useKey, waitForAnswer, createAccount, type ConsoleFixture,
  loginButton, logInFromHeader, heldToken,
} from './support.ts';
import { eventually } from '../support/eventually.ts';

// Long enough for a login and its first requests on a loaded machine (two test files share the cores), short
// enough to wait out once.
const SESSION_TTL_MS = 8_000;

const login = suite<ConsoleFixture>('console: login when needed');
login.before(async (ctx) => {
  Object.assign(ctx, await startConsoleFixture({ sessionTtlMs: SESSION_TTL_MS }));
});
login.after((ctx) => stopConsoleFixture(ctx));


login('Send without credentials opens "Log in"; a wrong password keeps it open with an alert; the right one sends the waiting request with no other click', async ({ server, browser, adminPassword }) => {
  const context = await browser.newContext();
  const { page, problems } = await openConsole(context, server.url);
  await chooseOperation(page, 'GET /v1/search-events');
  const before = await answersShown(page);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  const dialog = loginDialog(page);
  await dialog.waitFor();
  assert.is(await answersShown(page), before, 'nothing was sent without credentials');

  await logIn(page, 'admin', 'not the password');
  const alert = dialog.getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.innerText(), /invalid username or password/);
  assert.ok(await dialog.isVisible(), 'the dialog stays open');

  await dialog.getByLabel('Password').fill(adminPassword);
  await dialog.getByRole('button', { name: 'Log in', exact: true }).click();
  assert.is(await waitForAnswer(page, before), '200 OK', 'the waiting request was sent after login');
  assert.ok(!(await dialog.isVisible()));
  assert.ok((await responseJson(page)).events.length > 0);
  assert.ok(await page.getByRole('button', { name: 'Log out' }).isVisible());
  assert.is(await page.evaluate(() => document.activeElement?.textContent), 'Send', 'focus is back where it was before the login');
  assert.equal(problems, []);
  await context.close();
});

login('a session that expires: the 401 is shown, "Log in" opens again, and after login the request is sent again', async ({ server, browser, adminPassword }) => {
  const context = await browser.newContext();
  const { page } = await openConsole(context, server.url);
  await chooseOperation(page, 'GET /v1/timelines');
  await logInFromHeader(page, 'admin', adminPassword);
  assert.is(await sendAndWait(page), '200 OK');

  const token = await heldToken(page);
  await eventually('the session expires on the server', async () => (await call(server, 'GET', '/v1/timelines', { key: token })).status === 401, SESSION_TTL_MS + 5_000, 250);
  const before = await answersShown(page);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  assert.is(await waitForAnswer(page, before), '401 Unauthorized');
  const dialog = loginDialog(page);
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /expired/);
  await logIn(page, 'admin', adminPassword);
  assert.is(await waitForAnswer(page, before + 1), '200 OK', 'resent after the new login');
  await context.close();
});

login('a 401 for a credential no longer held leaves the login made since alone', async ({ server, browser, adminPassword }) => {
  const context = await browser.newContext();
  const { page } = await openConsole(context, server.url);
  await chooseOperation(page, 'GET /v1/timelines');
  await logInFromHeader(page, 'admin', adminPassword);
  const first = await heldToken(page);
  // The request leaves with the first session, and reaches the server only after that session has ended.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/v1/timelines**', async (route) => {
    await held;
    await route.continue();
  });
  const before = await answersShown(page);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await page.getByRole('button', { name: 'Log out' }).click();
  await logInFromHeader(page, 'admin', adminPassword);
  const second = await heldToken(page);
  assert.is.not(second, first);
  release();
  assert.is(await waitForAnswer(page, before), '401 Unauthorized');
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)));
  assert.not.ok(await loginDialog(page).isVisible(), 'no login asked for');
  assert.is(await heldToken(page), second, 'the second session is kept');
  assert.ok(await page.getByRole('button', { name: 'Log out' }).isVisible());
  await context.close();
});

login('Cancel while a login is under way: no login is kept, and the session the server made is ended', async ({ server, browser, adminPassword }) => {
  const context = await browser.newContext();
  const { page, problems } = await openConsole(context, server.url);
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let made = '';
  await page.route('**/v1/login', async (route) => {
    const answer = await route.fetch();
    made = ((await answer.json()) as { token: string }).token;
    await held;
    await route.fulfill({ response: answer });
  });
  await loginButton(page).click();
  const dialog = loginDialog(page);
  await dialog.waitFor();
  assert.is(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'username', 'the dialog opens with the cursor in Username');
  await logIn(page, 'admin', adminPassword);
  await eventually('the server has made the session', () => made !== '');
  assert.is(await dialog.getByRole('button', { name: 'Checking…' }).getAttribute('aria-disabled'), 'true', 'the dialog says it is checking');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  assert.not.ok(await dialog.isVisible());
  release();
  await eventually('the abandoned session is ended on the server', async () => (await call(server, 'GET', '/v1/timelines', { key: made })).status === 401, 5_000, 50);
  assert.is(await page.evaluate(() => sessionStorage.getItem('tms.console.credential')), null, 'no credential kept');
  assert.ok(await loginButton(page).isVisible(), 'still logged out');
  assert.not.ok(await dialog.isVisible(), 'the dialog stays closed');

  await loginButton(page).click();
  assert.ok(await dialog.getByRole('button', { name: 'Log in', exact: true }).isEnabled(), 'the dialog is ready for a new login');
  assert.is(await dialog.getByRole('alert').count(), 0);
  await page.unroute('**/v1/login');
  await logIn(page, 'admin', adminPassword);
  await page.getByRole('button', { name: 'Log out' }).waitFor();
  assert.equal(problems, []);
  await context.close();
});

login('"Log out" ends the session on the server: the token it held is refused afterwards', async ({ server, browser, adminPassword }) => {
  const context = await browser.newContext();
  const { page } = await openConsole(context, server.url);
  await logInFromHeader(page, 'admin', adminPassword);
  const token = await heldToken(page);
  assert.is((await call(server, 'GET', '/v1/timelines', { key: token })).status, 200);

  await page.getByRole('button', { name: 'Log out' }).click();
  await loginButton(page).waitFor();
  const after = await call(server, 'GET', '/v1/timelines', { key: token });
  assert.is(after.status, 401, 'the session is over on the server, not just forgotten by the page');
  assert.is(await page.evaluate(() => sessionStorage.getItem('tms.console.credential')), null);
  await context.close();
});

login('an API key instead of a password; a wrong key is refused in the dialog', async ({ server, browser }) => {
  const context = await browser.newContext();
  const { page } = await openConsole(context, server.url);
  await loginButton(page).click();
  const dialog = loginDialog(page);
  await dialog.getByRole('tab', { name: 'API key' }).click();
  await dialog.getByLabel('API key').fill('tms_key_wrong_wrong_wrong');
  await dialog.getByRole('button', { name: 'Use key' }).click();
  await dialog.getByRole('alert').waitFor();
  assert.match(await dialog.getByRole('alert').innerText(), /invalid or expired credentials/);
  await dialog.getByLabel('API key').fill(server.adminKey);
  await dialog.getByRole('button', { name: 'Use key' }).click();
  await dialog.waitFor({ state: 'hidden' });
  assert.is(await page.getByLabel('Logged in as').innerText(), 'API key (admin)', "the operator's TMS_ADMIN_KEY, found by the id the server derives");
  await chooseOperation(page, 'GET /v1/timelines');
  assert.is(await sendAndWait(page), '200 OK');
  assert.match(await statusOf(page).innerText(), /200/);
  await context.close();
});

login('credentials never reach a URL, the history, a snippet or the page text', async ({ server, browser, adminPassword }) => {
  const context = await browser.newContext();
  const { page } = await openConsole(context, server.url);
  const urls: string[] = [];
  page.on('request', (request) => urls.push(request.url()));
  await chooseOperation(page, 'GET /v1/search-events');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await logIn(page, 'admin', adminPassword);
  await statusOf(page).waitFor();
  const token = await heldToken(page);
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
  assert.ok(stored.includes('search-events'), 'the history holds the request');
  assert.not.ok(stored.includes(token) || stored.includes(adminPassword), 'but not the credential');
  assert.not.ok(urls.some((url) => url.includes(token) || url.includes(adminPassword)));
  await page.getByRole('tab', { name: 'Snippets' }).click();
  const text = await page.locator('body').innerText();
  assert.ok(text.includes('$TMS_TOKEN'));
  assert.not.ok(text.includes(token) || text.includes(adminPassword));
  await context.close();
});

login('an API key of an admin account other than admin is shown as that account\'s', async ({ server, browser }) => {
  await createAccount(server, 'ops', 'ops-password-0001', ['read', 'write', 'admin']);
  const made = await call(server, 'POST', '/v1/keys', { body: { account: 'ops', name: 'ops console', scopes: ['read', 'write', 'admin'] } });
  assert.is(made.status, 200, made.text);
  const context = await browser.newContext();
  const { page } = await openConsole(context, server.url);
  await useKey(page, made.json.key);
  assert.is(await page.getByLabel('Logged in as').innerText(), 'API key (ops)');
  await context.close();
});

login('a password sent in a request body is not kept: the history holds the request with the password blanked', async ({ server, browser, adminPassword }) => {
  const context = await browser.newContext();
  const { page } = await openConsole(context, server.url);
  await chooseOperation(page, 'POST /v1/login');
  await setBody(page, JSON.stringify({ username: 'admin', password: adminPassword }));
  assert.is(await sendAndWait(page), '200 OK');
  const stored = await page.evaluate(() => localStorage.getItem('tms.console.history') ?? '');
  assert.ok(stored.includes('/v1/login'), 'the history holds the request');
  assert.not.ok(stored.includes(adminPassword), 'but not the password');
  const [entry] = JSON.parse(stored) as { draft: { body: string } }[];
  assert.equal(JSON.parse(entry!.draft.body), { username: 'admin', password: '' });
  await context.close();
});

login.run();
