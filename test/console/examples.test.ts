// Every operation in the console's list, pre-filled from the documented examples and sent as is, succeeds
// on a fresh service: every REST route (2xx) and every RPC over Connect-Web (OK). Ids that an example needs
// come from earlier answers, as a person clicking through the list in the route table's order would get them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { restRoutes } from '../../src/server/rest/routes.ts';
import { startTestServer } from '../support/server.ts';
import { rpcMethods } from '../../src/server/connect/services.ts';
import { answersShown, chooseOperation, logIn, loginDialog, openConsole, resetConsole, response, startConsoleFixture, stopConsoleFixture, waitForAnswer, type ConsoleFixture, loginButton } from './support.ts';

/** The route table's order is a story (create, then use, then delete); the account the login example names comes first, logout last. */
const storyRank = (rpc: string) => (rpc.endsWith('.CreateAccount') ? -1 : rpc.endsWith('.Logout') ? 1 : 0);
const restOrder = [...restRoutes].sort((a, b) => storyRank(a.rpc) - storyRank(b.rpc));
const firstRouteOf = (rpc: string) => restRoutes.findIndex((route) => route.rpc === rpc);
const rpcOrder = [...rpcMethods.keys()]
  .filter((rpc) => rpc.startsWith('tms.v1.'))
  .sort((a, b) => storyRank(a) - storyRank(b) || firstRouteOf(a) - firstRouteOf(b));

/** Sends what the console pre-filled, and returns the answer's status line and the response pane's text. */
async function sendAsPrefilled(page: Page): Promise<{ status: string; text: string }> {
  const before = await answersShown(page);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  const status = await waitForAnswer(page, before);
  return { status, text: await response(page).innerText() };
}

/** The logout example ends the console's own session; the next run logs in again, as a person would. */
async function ensureLoggedIn(page: Page, adminPassword: string): Promise<void> {
  const button = loginButton(page);
  if (!(await button.isVisible())) return;
  await button.click();
  await logIn(page, 'admin', adminPassword);
  await loginDialog(page).waitFor({ state: 'hidden' });
}

const examples = suite<ConsoleFixture & { page: Page }>('console: every pre-filled example succeeds on a fresh service');
examples.before(async (ctx) => {
  Object.assign(ctx, await startConsoleFixture());
  const context = await ctx.browser.newContext();
  ctx.page = (await openConsole(context, ctx.server.url)).page;
});
examples.after.each(({ page }) => resetConsole(page));
examples.after((ctx) => stopConsoleFixture(ctx));

examples('the list holds every REST route and every RPC, grouped by service', async ({ page }) => {
  const list = page.getByRole('list', { name: 'Operations' });
  for (const route of restRoutes) assert.is(await list.getByRole('button', { name: `${route.method} ${route.path}`, exact: true }).count(), 1, `${route.method} ${route.path}`);
  for (const rpc of rpcOrder) {
    const [, , service, method] = rpc.split('.');
    assert.is(await list.getByRole('list', { name: service }).getByRole('button', { name: `RPC ${method}`, exact: true }).count(), 1, rpc);
  }
  await page.getByRole('searchbox', { name: 'Filter operations' }).fill('anchor rpc');
  const shown = await list.getByRole('button').allInnerTexts();
  assert.equal(shown.map((s) => s.replace(/\s+/g, ' ')), ['RPC SetAnchor', 'RPC CheckAnchorStability', 'RPC AdjustAnchor']);
  await page.getByRole('searchbox', { name: 'Filter operations' }).fill('');
});

examples('every REST route, pre-filled and sent as is, answers 2xx', async ({ page, adminPassword }) => {
  await ensureLoggedIn(page, adminPassword);
  const failed: string[] = [];
  for (const route of restOrder) {
    await chooseOperation(page, `${route.method} ${route.path}`);
    const { status, text } = await sendAsPrefilled(page);
    if (!/^2\d\d /.test(status)) failed.push(`${route.method} ${route.path}: ${text}`);
  }
  assert.equal(failed, []);
});

examples('every RPC, pre-filled and sent as is over Connect-Web, answers OK (on a fresh service of its own)', async ({ browser }) => {
  // The REST story leaves primary changed (the tutorial manipulation is not reverted): the RPCs start afresh.
  const fresh = await startTestServer();
  const { page } = await openConsole(await browser.newContext(), fresh.url);
  await ensureLoggedIn(page, fresh.app.bootstrap!.password);
  const failed: string[] = [];
  for (const rpc of rpcOrder) {
    const [, , service, method] = rpc.split('.');
    await chooseOperation(page, `RPC ${method}`, service);
    const { status, text } = await sendAsPrefilled(page);
    if (status !== 'OK') failed.push(`${rpc}: ${text}`);
  }
  await fresh.stop();
  assert.equal(failed, []);
});

examples.run();
