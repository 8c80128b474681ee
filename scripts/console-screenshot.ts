// The README's picture of the console: a fresh service, one search sent, captured in light and dark.
// Usage: npm run screenshot [-- <out-dir>]   (default docs/images)
import { join } from 'node:path';
import { startTestServer } from '../test/support/server.ts';
import { launchBrowser } from '../test/support/browser.ts';

const outDir = process.argv[2] ?? 'docs/images';
const server = await startTestServer();
const browser = await launchBrowser();
try {
  for (const scheme of ['light', 'dark'] as const) {
    const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, colorScheme: scheme });
    const page = await context.newPage();
    await page.goto(`${server.url}/console`);
    await page.getByRole('list', { name: 'Operations' }).getByRole('button', { name: 'GET /v1/search-events' }).click();
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Log in' });
    await dialog.getByRole('tab', { name: 'API key' }).click();
    await dialog.getByLabel('API key').fill(server.adminKey);
    await dialog.getByRole('button', { name: 'Use key' }).click();
    await page.getByRole('region', { name: 'Response' }).getByText('200 OK').waitFor();
    const file = join(outDir, `console-${scheme}.png`);
    await page.screenshot({ path: file });
    console.log(`wrote ${file}`);
    await context.close();
  }
} finally {
  await browser.close();
  await server.stop();
}
