// Headless Chromium for the console's browser tests: Debian's `chromium` package driven by
// playwright-core (no browser download), a fresh profile per launch, and nothing that phones home.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** The Chromium executable, or undefined when this machine has none. */
export const chromiumPath = candidates.find((p): p is string => !!p && existsSync(p));

const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where the tests leave a screenshot of each page (git-ignored). */
export const screenshotDir = path.resolve(__dirname, '../../test-artifacts/console');

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(options: {
  viewport: { width: number; height: number };
  downloadsPath?: string;
}): Promise<Browser> {
  if (!chromiumPath) throw new Error('No Chromium found: apt-get install -y chromium (or set CHROMIUM_PATH)');
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumFlags,
    viewport: options.viewport,
    deviceScaleFactor: 1,
    acceptDownloads: true,
    ...(options.downloadsPath ? { downloadsPath: options.downloadsPath } : {}),
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
