// The console's connect-a-mailbox form in headless Chromium against the local runtime: a host the
// service cannot reach is refused with the API's words (which server, which host, why), nothing is
// connected, and a member's key is told why it cannot. Screenshots in test-artifacts/console/.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import { chromiumPath, launchChromium, screenshotDir, type Browser } from './chromium';

jest.setTimeout(240_000);
const timeout = 60_000;

if (!chromiumPath)
  throw new Error(
    'the console browser tests need Chromium (apt-get install -y chromium, or set CHROMIUM_PATH)',
  );

let runtime: TestRuntime;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(screenshotDir, { recursive: true });
  runtime = await startTestRuntime({ ALLOW_PRIVATE_MX: 'true' });
  browser = await launchChromium({ viewport: { width: 1100, height: 760 } });
});
afterAll(async () => {
  await browser?.close();
  await runtime?.stop();
});

async function mailboxesPage(key: string): Promise<Page> {
  const page = await browser.context.newPage();
  await page.goto(runtime.baseUrl + '/');
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout });
  await page.goto(runtime.baseUrl + '/#/mailboxes');
  await page.getByRole('heading', { name: 'Connect a mailbox' }).waitFor({ timeout });
  return page;
}

async function fill(page: Page) {
  await page.getByLabel('Mailbox address').fill('ada@alpha.test');
  await page.getByLabel('IMAP host').fill('127.0.37.250');
  await page.getByLabel('IMAP port').fill('1');
  await page.getByLabel('IMAP password').fill('app-password');
  await page.getByLabel('SMTP host').fill('127.0.37.250');
  await page.getByLabel('SMTP password').fill('app-password');
  await page.getByRole('button', { name: 'Connect' }).click();
}

describe('console: connect a mailbox', () => {
  it('shows what to fix when a server cannot be reached, and connects nothing', async () => {
    const page = await mailboxesPage(runtime.keys.admin);
    await page.getByTestId('mailboxes').locator('tbody tr').first().waitFor({ timeout });
    const before = await page.getByTestId('mailboxes').locator('tbody tr').count();
    await fill(page);
    const alert = page.getByRole('alert');
    await alert.waitFor({ timeout });
    expect(await alert.textContent()).toContain('IMAP server 127.0.37.250:1 unreachable: connection refused');
    await page.screenshot({ path: path.join(screenshotDir, 'mailbox-connect-error.png'), fullPage: true });
    await page.reload();
    await page.getByTestId('mailboxes').locator('tbody tr').first().waitFor({ timeout });
    expect(await page.getByTestId('mailboxes').locator('tbody tr').count()).toBe(before);
    expect(await page.locator('body').textContent()).not.toContain('ada@alpha.test');
  });

  it("tells a member's key that only an admin can connect", async () => {
    const page = await mailboxesPage(runtime.keys.member);
    await fill(page);
    const alert = page.getByRole('alert');
    await alert.waitFor({ timeout });
    expect(await alert.textContent()).toContain('only an admin can');
  });
});
