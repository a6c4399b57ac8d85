// The console's Safety Net page in headless Chromium against the Outreach stand-in: "Connect Outreach"
// goes through the platform's consent and back to the page, which shows the connection and its last
// sync; an email the look-ahead stops shows with its reason; the allowlist takes an address. The page
// is saved as docs/console/safety-net.png.
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { startOutreachFake, type OutreachFake } from '../fakes/outreach';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import { platformEnv } from '../integration/safety-net-harness';
import { chromiumPath, launchChromium, screenshotDir, type Browser } from './chromium';

jest.setTimeout(180_000);
const timeout = 60_000;

// A missing browser fails the file rather than skipping it.
if (!chromiumPath) throw new Error('no Chromium found: apt-get install -y chromium, or set CHROMIUM_PATH');

let fake: OutreachFake;
let runtime: TestRuntime;
let browser: Browser;
const pageErrors: string[] = [];

async function visible(locator: Locator, text: string | RegExp): Promise<void> {
  await locator.filter({ hasText: text }).first().waitFor({ timeout });
}

describe('the Safety Net page', () => {
  beforeAll(async () => {
    mkdirSync(screenshotDir, { recursive: true });
    fake = await startOutreachFake({ host: '127.0.35.133' });
    const owner = fake.control.addUser({
      email: 'owen.owner@acme-sales.example',
      firstName: 'Owen',
      lastName: 'Owner',
    });
    fake.control.addMailbox({ userId: owner, email: 'owen@acme-sales.example' });
    fake.control.addSequence({ ownerId: owner, name: 'Cold intro' });
    runtime = await startTestRuntime({
      ...platformEnv('outreach', fake),
      SAFETY_NET_LOOKAHEAD_MINUTES: '0.1',
    });
    browser = await launchChromium({ viewport: { width: 1100, height: 760 } });
    browser.context.on('weberror', (e) => pageErrors.push(String(e.error())));
  });

  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
    await fake?.stop();
  });

  it('connects Outreach through its consent page, shows the sync, a stopped email with its reason, and the allowlist', async () => {
    const page = await browser.context.newPage();
    await page.goto(runtime.baseUrl + '/');
    await page.getByLabel('API key').fill(runtime.keys.admin);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout });
    await page.getByRole('link', { name: 'Safety Net' }).click();

    await page.getByRole('button', { name: 'Connect Outreach' }).click();
    // the platform's consent answers 302 to mailvet's callback, which sends the browser back here
    await page.waitForURL(`${runtime.baseUrl}/#/safety-net`, { timeout });
    const connections = page.getByTestId('safety-net-connections');
    for (let i = 0; i < 60; i++) {
      if ((await connections.locator('li[data-platform=outreach]').innerText()).includes('last sync 2'))
        break;
      await new Promise((resolve) => setTimeout(resolve, 500));
      await page.reload();
      await connections.waitFor({ timeout });
    }
    await visible(connections.locator('li[data-platform=outreach]'), /Connected.*last sync \d/s);
    await visible(page.getByTestId('safety-net-mailboxes'), 'owen@acme-sales.example');

    // the Safety Net on for Owen's mailbox, then an email to a dead address is scheduled
    await page.getByRole('switch', { name: 'Safety Net for owen@acme-sales.example' }).click();
    const mailboxId = fake.control.list('mailbox')[0]!.id;
    fake.control.scheduleEmail({
      mailboxId,
      to: 'dead@mailvet.test',
      sequenceId: fake.control.list('sequence')[0]!.id,
    });
    for (let i = 0; i < 40; i++) {
      await page.reload();
      const table = page.getByTestId('safety-net-preventions');
      if ((await table.count()) > 0 && (await table.innerText()).includes('dead@mailvet.test')) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await visible(
      page.getByTestId('safety-net-preventions'),
      /dead@mailvet\.test[\s\S]*owen@acme-sales\.example/,
    );

    await page.getByLabel('Address').fill('keep.me@acme.example');
    await page.getByRole('button', { name: 'Allow' }).click();
    await visible(page.getByTestId('safety-net-allowlist'), 'keep.me@acme.example');

    const file = path.join(screenshotDir, 'safety-net-connections.png');
    await page.screenshot({ path: file, fullPage: true });
    copyFileSync(file, path.resolve(__dirname, '../../docs/console/safety-net.png'));
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
