// The console's controls have the accessible names the issue lists (screen readers and automated clients
// drive it by them), axe-core finds no serious or critical violation in light or dark, and the page
// follows the system's colour scheme.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { chooseOperation, loginDialog, openConsole, sendAndWait, setBody, startConsoleFixture, stopConsoleFixture, useKey, type ConsoleFixture, loginButton } from './support.ts';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation { id: string; impact: string; help: string; nodes: { target: string[] }[] }

/** axe-core, run by the test harness (not by the page, whose CSP allows no such script), on the page as it is. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

const a11y = suite<ConsoleFixture>('console: accessible names, axe-core, themes');
a11y.before(async (ctx) => {
  Object.assign(ctx, await startConsoleFixture());
});
a11y.after((ctx) => stopConsoleFixture(ctx));

a11y('the first Tab offers a skip past the operation list; on a narrow screen a new answer is scrolled into view', async ({ server, browser }) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const { page } = await openConsole(context, server.url);
  await page.keyboard.press('Tab');
  assert.is(await page.evaluate(() => document.activeElement?.textContent), 'Skip to the request');
  await page.keyboard.press('Enter');
  assert.is(await page.evaluate(() => document.activeElement?.id), 'request');
  await useKey(page, server.adminKey);

  await chooseOperation(page, 'GET /v1/timelines');
  await page.evaluate(() => window.scrollTo(0, 0));
  assert.is(await sendAndWait(page), '200 OK');
  const top = await page.getByRole('region', { name: 'Response' }).evaluate((element) => element.getBoundingClientRect().top);
  assert.ok(top > -1 && top < 844, `the answer is in view (its pane starts at ${top} px; sub-pixel rounding aside)`);
  await context.close();
});

a11y('every control the interface names is there by its accessible name', async ({ server, browser }) => {
  const context = await browser.newContext();
  const { page } = await openConsole(context, server.url);
  for (const [role, name] of [
    ['combobox', 'Method'], ['textbox', 'Path'], ['textbox', 'Body'], ['button', 'Send'], ['button', 'Save'], ['button', 'Share'],
    ['region', 'Response'], ['list', 'Operations'],
  ] as const) {
    assert.is(await page.getByRole(role, { name, exact: true }).count(), 1, `${role} "${name}"`);
  }
  await loginButton(page).click();
  const dialog = loginDialog(page);
  // waitFor fails the test (after its timeout) when the control never appears.
  await dialog.getByRole('textbox', { name: 'Username' }).waitFor();
  await dialog.getByLabel('Password').waitFor();
  assert.is(await dialog.getByLabel('Password').getAttribute('type'), 'password');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await useKey(page, server.adminKey);
  assert.is(await page.getByRole('button', { name: 'Log out', exact: true }).count(), 1);
  await page.getByRole('tab', { name: /^Saved/ }).click();
  assert.is(await page.getByRole('list', { name: 'Saved', exact: true }).count(), 1);
  await context.close();
});

a11y('tab lists: one tab in the Tab order, arrow keys, Home and End move and select, and each shows its panel', async ({ server, browser }) => {
  const context = await browser.newContext();
  const { page } = await openConsole(context, server.url);
  const lists = page.getByRole('tablist', { name: 'Lists' });
  // Focus moves in an effect after the render that shows its target: read it once it has settled.
  const focused = async (): Promise<string> => {
    const read = () => page.evaluate(() => (document.activeElement === document.body ? '' : (document.activeElement?.textContent ?? '')));
    for (let tries = 0; tries < 100 && (await read()) === ''; tries++) await page.waitForTimeout(20);
    return read();
  };
  const selectedTab = () => lists.getByRole('tab', { selected: true }).textContent();
  assert.equal(await lists.getByRole('tab').evaluateAll((tabs) => tabs.map((tab) => (tab as HTMLElement).tabIndex)), [0, -1, -1], 'only the selected tab is reached by Tab');

  await lists.getByRole('tab', { name: 'Operations' }).focus();
  await page.keyboard.press('ArrowRight');
  assert.match(await focused(), /^Saved/);
  assert.match(await selectedTab() ?? '', /^Saved/);
  assert.is(await page.getByRole('tabpanel', { name: /^Saved/ }).count(), 1, 'the Saved panel, named by its tab');
  await page.keyboard.press('End');
  assert.is(await focused(), 'History');
  await page.keyboard.press('ArrowRight');
  assert.is(await focused(), 'Operations', 'from the last tab, on to the first');
  await page.keyboard.press('ArrowLeft');
  assert.is(await selectedTab(), 'History', 'and back');
  await page.keyboard.press('Home');
  assert.is(await selectedTab(), 'Operations');
  assert.is(await page.getByRole('tabpanel', { name: 'Operations' }).getByRole('list', { name: 'Operations' }).count(), 1);
  assert.equal(await lists.getByRole('tab').evaluateAll((tabs) => tabs.map((tab) => (tab as HTMLElement).tabIndex)), [0, -1, -1]);

  // The other tab lists are the same widget.
  await useKey(page, server.adminKey);
  await chooseOperation(page, 'GET /v1/timelines');
  assert.is(await sendAndWait(page), '200 OK');
  await page.getByRole('tab', { name: 'Body' }).focus();
  await page.keyboard.press('ArrowRight');
  assert.match(await focused(), /^Headers \(\d+\)$/);
  assert.is(await page.getByRole('tabpanel', { name: /^Headers/ }).getByRole('table', { name: 'Response headers' }).count(), 1);
  await page.getByRole('tab', { name: 'Snippets' }).focus();
  await page.keyboard.press('ArrowLeft');
  assert.is(await focused(), 'Compare');
  await context.close();
});

a11y('focus is not dropped on the page when an action removes the control it came from', async ({ server, browser }) => {
  const context = await browser.newContext();
  const { page } = await openConsole(context, server.url);
  // Focus moves in an effect after the render that shows its target: read it once it has settled.
  const focused = async (): Promise<string> => {
    const read = () => page.evaluate(() => (document.activeElement === document.body ? '' : (document.activeElement?.textContent ?? '')));
    for (let tries = 0; tries < 100 && (await read()) === ''; tries++) await page.waitForTimeout(20);
    return read();
  };
  await useKey(page, server.adminKey);
  await page.getByRole('button', { name: 'Log out', exact: true }).waitFor();
  assert.is(await focused(), 'Log out', 'after logging in from the header: its Log in became Log out');

  await chooseOperation(page, 'GET /v1/timelines');
  await page.getByRole('button', { name: 'Share', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Save and share' });
  await dialog.getByLabel('Name').fill('focus check');
  await dialog.getByRole('button', { name: 'Save request' }).click();
  await page.getByRole('textbox', { name: 'Share link' }).waitFor();
  await page.getByRole('button', { name: 'Unshare', exact: true }).click();
  await page.getByRole('button', { name: 'Unshare', exact: true }).waitFor({ state: 'detached' });
  assert.is(await focused(), 'Share', 'after Unshare, which is gone');

  await page.getByRole('tab', { name: /^Saved/ }).click();
  await page.getByRole('list', { name: 'Saved', exact: true }).getByRole('button', { name: 'Delete focus check' }).click();
  await page.getByRole('dialog', { name: 'Delete saved request' }).getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByText(/^Deleted “focus check”/).waitFor();
  assert.match(await focused(), /^Saved/, 'after a delete: the Saved tab');

  await page.getByRole('button', { name: 'Log out', exact: true }).click();
  await page.getByRole('button', { name: 'Log in', exact: true }).waitFor();
  assert.is(await focused(), 'Log in', 'after logging out');
  await context.close();
});

for (const colorScheme of ['light', 'dark'] as const) {
  a11y(`axe-core: no serious or critical violation (${colorScheme}): first view, login dialog, an error answer`, async ({ server, browser }) => {
    const context = await browser.newContext({ colorScheme });
    const { page } = await openConsole(context, server.url);
    const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    assert.is(background === 'rgb(247, 247, 248)', colorScheme === 'light', `background ${background} follows the ${colorScheme} scheme`);
    assert.equal(await seriousViolations(page), [], 'first view');
    const levels = await page.locator('h1, h2, h3, h4, h5, h6').evaluateAll((headings) => headings.map((h) => Number(h.tagName[1])));
    assert.ok(levels.every((level, i) => i === 0 || level <= levels[i - 1]! + 1), `headings skip no level: ${levels.join(' ')}`);
    await loginButton(page).click();
    await loginDialog(page).getByLabel('Username').waitFor();
    assert.equal(await seriousViolations(page), [], 'login dialog');
    await loginDialog(page).getByRole('button', { name: 'Cancel' }).click();
    await loginDialog(page).waitFor({ state: 'hidden' });
    await useKey(page, server.adminKey);
    await chooseOperation(page, 'POST /v1/create-timeline');
    await setBody(page, '{"base_timeline_id": 5}');
    assert.is(await sendAndWait(page), '400 Bad Request');
    assert.equal(await seriousViolations(page), [], 'error answer');
    // The editor's completion list, in the page's colours.
    await setBody(page, '{}');
    await page.getByRole('textbox', { name: 'Body' }).click();
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Control+Space');
    await page.locator('.cm-tooltip-autocomplete li').first().waitFor();
    assert.equal(await seriousViolations(page), [], 'completion list');
    // Compare's answers scroll by keyboard, as the response body does.
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.getByLabel('Timeline B').fill('primary');
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    await page.getByLabel('Answer B').waitFor();
    assert.equal(await page.locator('pre[aria-label^="Answer"]').evaluateAll((pres) => pres.map((pre) => (pre as HTMLElement).tabIndex)), [0, 0]);
    assert.equal(await seriousViolations(page), [], 'compared answers');
    await context.close();
  });
}

a11y.run();
