import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { call, startTestServer, type TestServer } from '../support/server.ts';
import type { Config } from '../../src/config.ts';

/** A real tms server and a real Chromium, for one test file. */
export interface ConsoleFixture {
  server: TestServer;
  browser: Browser;
  /** The bootstrap admin's password (a login session, unlike the API key). */
  adminPassword: string;
}

export async function startConsoleFixture(overrides: Partial<Config> = {}): Promise<ConsoleFixture> {
  const server = await startTestServer(overrides);
  try {
    const adminPassword = server.app.bootstrap?.password;
    if (!adminPassword) throw new Error('a fresh test server reports its admin password');
    return { server, browser: await launchBrowser(), adminPassword };
  } catch (error) {
    // A browser that cannot start (chromium not installed) must fail the file, not leave the server holding it open.
    await server.stop();
    // uvu does not print what a `before` hook threw: say it here.
    console.error(`console fixture: ${error instanceof Error ? error.message : String(error)}`);
    throw error;
  }
}

export async function stopConsoleFixture(fixture: Partial<ConsoleFixture>): Promise<void> {
  await fixture.browser?.close();
  await fixture.server?.stop();
}

/** A page on /console; every browser console error and CSP violation is collected in `problems`. */
export async function openConsole(context: BrowserContext, url: string, hash = ''): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !/the server responded with a status of (4|5)\d\d/.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  await page.goto(`${url}/console${hash}`);
  await page.getByRole('list', { name: 'Operations' }).getByRole('button').first().waitFor();
  return { page, problems };
}

export const response = (page: Page) => page.getByRole('region', { name: 'Response' });
export const statusOf = (page: Page) => response(page).getByTestId('status');
export const loginDialog = (page: Page) => page.getByRole('dialog', { name: 'Log in' });
/** The header's "Log in" button (the dialog has a submit button of the same name). */
export const loginButton = (page: Page) => page.getByRole('banner').getByRole('button', { name: 'Log in', exact: true });

/** The response body pane's text, as JSON. */
export async function responseJson(page: Page): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any -- whatever the server answered
  return JSON.parse(await response(page).getByLabel('Response body').innerText());
}

export async function chooseOperation(page: Page, name: string, service?: string): Promise<void> {
  const list = page.getByRole('list', { name: 'Operations' });
  const scope = service ? list.getByRole('list', { name: service }) : list;
  await scope.getByRole('button', { name, exact: true }).click();
}

export async function logIn(page: Page, username: string, password: string): Promise<void> {
  const dialog = loginDialog(page);
  await dialog.getByRole('tab', { name: 'Username and password' }).click();
  await dialog.getByLabel('Username').fill(username);
  await dialog.getByLabel('Password').fill(password);
  await dialog.getByRole('button', { name: 'Log in', exact: true }).click();
}

/** The credential the console holds (a session token or an API key), read as the page keeps it. */
export async function heldToken(page: Page): Promise<string> {
  const token = await page.evaluate(() => (JSON.parse(sessionStorage.getItem('tms.console.credential') ?? '{}') as { token?: string }).token);
  assert.ok(token, 'the console holds a credential');
  return token;
}

/** Logs in through the header's "Log in" button, and waits for the dialog to close. */
export async function logInFromHeader(page: Page, username: string, password: string): Promise<void> {
  await loginButton(page).click();
  await logIn(page, username, password);
  await loginDialog(page).waitFor({ state: 'hidden' });
}

/** Logs in with an API key through the "Log in" dialog. */
export async function useKey(page: Page, key: string): Promise<void> {
  await loginButton(page).click();
  const dialog = loginDialog(page);
  await dialog.getByRole('tab', { name: 'API key' }).click();
  await dialog.getByLabel('API key').fill(key);
  await dialog.getByRole('button', { name: 'Use key' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/**
 * Puts back what tests sharing one page rely on: the operation list shown and unfiltered, the response's body
 * shown, no request intercepted. Run after each such test, so that one failing half way fails alone.
 */
export async function resetConsole(page: Page): Promise<void> {
  await page.unrouteAll();
  await page.getByRole('tab', { name: 'Operations', exact: true }).click();
  await page.getByRole('searchbox', { name: 'Filter operations' }).fill('');
  const bodyTab = response(page).getByRole('tab', { name: 'Body', exact: true });
  if ((await bodyTab.count()) > 0) await bodyTab.click();
}

/** How many answers the response pane has shown so far. */
export async function answersShown(page: Page): Promise<number> {
  return Number(await response(page).getAttribute('data-sequence'));
}

/** Waits for the answer after `before` answers, and returns its status line. */
export async function waitForAnswer(page: Page, before: number): Promise<string> {
  await page.locator(`[aria-label="Response"][data-sequence="${before + 1}"]`).waitFor();
  return statusOf(page).innerText();
}

/** Clicks Send and returns the status line of the answer it brings. */
export async function sendAndWait(page: Page): Promise<string> {
  const before = await answersShown(page);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  return waitForAnswer(page, before);
}

/** Replaces the JSON editor's whole text (CodeMirror is a contenteditable, not a textarea). */
export async function setBody(page: Page, text: string): Promise<void> {
  const editor = page.getByRole('textbox', { name: 'Body' });
  await editor.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await editor.evaluate((element, value) => {
    // Typing would be auto-closed by the editor (brackets, quotes); inserting text is what a paste does.
    element.ownerDocument.execCommand('insertText', false, value);
  }, text);
}

export async function createAccount(server: TestServer, username: string, password: string, scopes = ['read', 'write']): Promise<void> {
  const created = await call(server, 'POST', '/v1/accounts', { body: { username, password, scopes } });
  if (created.status !== 200) throw new Error(`account ${username}: ${created.status} ${created.text}`);
}
