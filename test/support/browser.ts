import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium (apt install chromium); a browser build is never downloaded. */
export const CHROMIUM = process.env.TMS_CHROMIUM ?? '/usr/bin/chromium';

/** Headless Chromium with the flags a closed, sandboxed machine needs (architecture.md). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}
