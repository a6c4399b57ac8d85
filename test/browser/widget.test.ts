// The signup-form widget in headless Chromium: the sample page of docs/examples/signup.html, served from
// its own origin by a small server here, loads /widget.js from the local runtime with a publishable key
// made for that origin. The same page on another origin is refused. Screenshots in test-artifacts/console/.
// The blocked and the accepted address are test addresses (mailvet.test): their verdicts are fixed and
// need no DNS; the fixture DNS only answers the typo's domain.
import { mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { createPublishableKey } from '../../functions/domain/accounts/publishable';
import { startBulkDns } from '../e2e/bulk-client';
import { fixtureDnsSettings, startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import type { FixtureDns } from '../unit/validation/fixtures/dns-server';
import { chromiumPath, launchChromium, screenshotDir, type Browser } from './chromium';

jest.setTimeout(120_000);

const timeout = 30_000;
const typoAddress = 'jo@gmial.com';
const safeAddress = 'safe@mailvet.test';
const bounceAddress = 'bounce@mailvet.test';

if (!chromiumPath && process.env.CI)
  throw new Error('CI must run the browser tests: install chromium with apt');
if (!chromiumPath)
  process.stderr.write('Skipping the widget browser test: no Chromium found (apt-get install -y chromium)\n');
// Skipped only where no Chromium exists (and never in CI, see above), with the message above.
const describeInBrowser = chromiumPath ? describe : describe.skip;

const samplePage = readFileSync(path.resolve(__dirname, '../../docs/examples/signup.html'), 'utf8');

/** Serves the sample page at /signup.html with the widget's address and key filled in. */
async function startSite(
  widgetUrl: () => string,
  key: () => string,
): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    if (!request.url?.startsWith('/signup.html')) {
      response.writeHead(404).end();
      return;
    }
    const page = samplePage
      .replaceAll('http://localhost:3000/widget.js', widgetUrl())
      .replaceAll('mv_pub_REPLACE_ME', key());
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let dns: FixtureDns;
let runtime: TestRuntime;
let browser: Browser;
let site: Awaited<ReturnType<typeof startSite>>;
let otherSite: Awaited<ReturnType<typeof startSite>>;
let key = '';

describeInBrowser('signup-form widget', () => {
  beforeAll(async () => {
    mkdirSync(screenshotDir, { recursive: true });
    dns = await startBulkDns();
    runtime = await startTestRuntime(fixtureDnsSettings(dns));
    site = await startSite(
      () => `${runtime.baseUrl}/widget.js`,
      () => key,
    );
    otherSite = await startSite(
      () => `${runtime.baseUrl}/widget.js`,
      () => key,
    );
    ({ rawKey: key } = await createPublishableKey({
      companyId: runtime.ids.acme,
      userId: runtime.ids.acmeAdmin,
      userEmail: 'ada.admin@acme.example',
      name: 'sample signup page',
      origin: site.origin,
    }));
    browser = await launchChromium({ viewport: { width: 640, height: 480 } });
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await otherSite?.close();
    await runtime?.stop();
    await dns?.close();
  });

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(screenshotDir, `widget-${name}.png`), fullPage: true });

  async function signupPage(origin = site.origin): Promise<Page> {
    const page = await browser.context.newPage();
    await page.goto(`${origin}/signup.html`);
    // The widget marks each field it has attached to.
    await page.locator('input[type=email][data-mailvet="on"]').waitFor({ timeout });
    return page;
  }

  /** Types an address and leaves the field, waiting for the widget's call to be answered. */
  async function enter(page: Page, email: string): Promise<number> {
    await page.getByLabel('Email').fill(email);
    const answered = page.waitForResponse((r) => r.url().endsWith('/v1/email/validate'), { timeout });
    await page.getByLabel('Name').focus();
    return (await answered).status();
  }

  const message = (page: Page) => page.locator('.mailvet-message');

  it('shows the suggestion for a typo, announced to screen readers, and takes it on a click', async () => {
    const page = await signupPage();
    expect(await enter(page, typoAddress)).toBe(200);
    const suggestion = page.getByRole('button', { name: 'jo@gmail.com' });
    await suggestion.waitFor({ timeout });
    expect(await message(page).getAttribute('aria-live')).toBe('polite');
    expect(await message(page).getAttribute('role')).toBe('status');
    expect(await message(page).textContent()).toContain('Did you mean jo@gmail.com?');
    const describedBy = await page.getByLabel('Email').getAttribute('aria-describedby');
    expect(describedBy).toBe(await message(page).getAttribute('id'));
    await shot(page, 'suggestion');

    await suggestion.click();
    expect(await page.getByLabel('Email').inputValue()).toBe('jo@gmail.com');
    await page.close();
  });

  it('blocks the submit of an address that would bounce, on a click and on Enter', async () => {
    const page = await signupPage();
    expect(await enter(page, bounceAddress)).toBe(200);
    await page.locator('.mailvet-message[data-state="blocked"]').waitFor({ timeout });
    expect(await page.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('button', { name: 'Sign up' }).click();
    // Give a submit the time to navigate, then check it did not.
    await page.waitForTimeout(500);
    expect(new URL(page.url()).search).toBe('');
    expect(await page.locator('#thanks').isHidden()).toBe(true);
    await shot(page, 'blocked');
    await page.close();

    // Enter straight from the field: the widget checks before letting the form go.
    const typed = await signupPage();
    await typed.getByLabel('Email').fill(bounceAddress);
    await typed.getByLabel('Email').press('Enter');
    await typed.locator('.mailvet-message[data-state="blocked"]').waitFor({ timeout });
    expect(new URL(typed.url()).search).toBe('');
    await typed.close();
  });

  it('lets a safe address through', async () => {
    const page = await signupPage();
    expect(await enter(page, safeAddress)).toBe(200);
    expect((await message(page).textContent()) ?? '').toBe('');
    await Promise.all([
      page.waitForURL(/\?.*email=/, { timeout }),
      page.getByRole('button', { name: 'Sign up' }).click(),
    ]);
    await page.locator('#thanks').waitFor({ state: 'visible', timeout });
    expect(new URL(page.url()).searchParams.get('email')).toBe(safeAddress);
    await shot(page, 'sent');
    await page.close();
    // test addresses never reach DNS
    for (const type of ['MX', 'A', 'AAAA']) expect(dns.count('mailvet.test', type)).toBe(0);
  });

  it('is refused from another origin (403), and the form there still works unchecked', async () => {
    expect(otherSite.origin).not.toBe(site.origin);
    const page = await signupPage(otherSite.origin);
    const failed = page.waitForEvent('requestfailed', {
      predicate: (r) => r.url().endsWith('/v1/email/validate'),
      timeout,
    });
    await page.getByLabel('Email').fill(typoAddress);
    await page.getByLabel('Name').focus();
    await failed;
    expect((await message(page).textContent()) ?? '').toBe('');
    await shot(page, 'other-origin');
    // What the browser was told: the preflight and the call itself are refused for this origin.
    const preflight = await fetch(`${runtime.baseUrl}/v1/email/validate`, {
      method: 'OPTIONS',
      headers: { origin: otherSite.origin, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    const call = await fetch(`${runtime.baseUrl}/v1/email/validate`, {
      method: 'POST',
      headers: { origin: otherSite.origin, 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ email: typoAddress }),
    });
    expect(call.status).toBe(403);
    expect(await call.json()).toEqual({ error: 'Invalid API key' });
    await page.close();
  });
});
