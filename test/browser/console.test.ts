// The web console end to end in headless Chromium, against the whole local runtime (API, S3, SQS,
// DynamoDB Local) with the validator pointed at a fixture DNS server: every page a person uses, checked
// by what the page shows and by what the API then holds. Each page leaves a screenshot in
// test-artifacts/console/.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import type { Locator, Page, Request } from 'playwright-core';
import { createMailvetClient, type Usage } from '../../client';
import { buildCsv, startBulkDns } from '../e2e/bulk-client';
import { fixtureDnsSettings, startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import type { FixtureDns } from '../unit/validation/fixtures/dns-server';
import { chromiumPath, launchChromium, screenshotDir, type Browser } from './chromium';

jest.setTimeout(240_000);

/** Generous: the machine is shared and slow; every wait is for an event, never a fixed sleep. */
const timeout = 60_000;

if (!chromiumPath && process.env.CI)
  throw new Error('CI must run the browser tests: install chromium with apt');
if (!chromiumPath)
  process.stderr.write(
    'Skipping the console browser tests: no Chromium found (apt-get install -y chromium, or set CHROMIUM_PATH)\n',
  );
// Skipped only where no Chromium exists (and never in CI, see above), with the message above.
const describeInBrowser = chromiumPath ? describe : describe.skip;

let dns: FixtureDns;
let runtime: TestRuntime;
let browser: Browser;
const requests: string[] = [];
/** Errors the pages logged (a Content-Security-Policy violation among them). */
const pageErrors: string[] = [];

describeInBrowser('web console', () => {
  beforeAll(async () => {
    mkdirSync(screenshotDir, { recursive: true });
    dns = await startBulkDns();
    // Upload addresses last 20 s here, so the expiry test needs to hold its upload back only briefly.
    runtime = await startTestRuntime({ ...fixtureDnsSettings(dns), UPLOAD_URL_TTL_SECONDS: '20' });
    browser = await launchChromium({ viewport: { width: 1100, height: 760 } });
    browser.context.on('request', (r: Request) => requests.push(r.url()));
    browser.context.on('weberror', (e) => pageErrors.push(String(e.error())));
    // Refused API calls log "Failed to load resource" on purpose (a bad key, the job limit); a policy
    // violation or an uncaught exception is a bug.
    browser.context.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) pageErrors.push(m.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
    await dns?.close();
  });

  async function signedIn(key: string = runtime.keys.admin, page?: Page): Promise<Page> {
    const p = page ?? (await browser.context.newPage());
    await p.goto(runtime.baseUrl + '/');
    await p.getByLabel('API key').fill(key);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('navigation', { name: 'Main' }).waitFor({ timeout });
    return p;
  }

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true });

  it('signs in with a valid key, refuses a bad one, and keeps the key in sessionStorage only', async () => {
    const page = await browser.context.newPage();
    await page.goto(runtime.baseUrl + '/');
    // By keyboard: the label names the field, Enter submits the form.
    await page.getByLabel('API key').fill('not-a-key');
    await page.keyboard.press('Enter');
    await expectText(page.getByRole('alert'), 'That API key was not accepted');
    // The local runtime serves the API reference beside the console; the sign-in page says where.
    expect(await page.getByRole('link', { name: '/docs' }).getAttribute('href')).toBe('/docs');
    expect(await page.locator('main p.muted').textContent()).toMatch(/\/docs; try the key demo-admin-key\./);
    await shot(page, 'sign-in-bad-key');
    // The tab gets the console's icon, not a 404.
    const icon = await fetch(runtime.baseUrl + '/favicon.ico');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/x-icon');
    expect(Buffer.from(await icon.arrayBuffer()).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));

    await signedIn(runtime.keys.admin, page);
    expect(await page.evaluate('sessionStorage.getItem("mailvet.apiKey")')).toBe(runtime.keys.admin);
    expect(await page.evaluate('document.cookie')).toBe('');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor({ timeout });
    expect(await page.evaluate('sessionStorage.getItem("mailvet.apiKey")')).toBeNull();
    await page.close();
  });

  it('validates an address: status, reason in words, "did you mean", details', async () => {
    const page = await signedIn();
    await page.getByLabel('Email address').fill('ann@gmial.com');
    await page.getByRole('button', { name: 'Validate' }).click();
    const result = page.locator('article.result');
    await result.waitFor({ timeout });
    expect(await result.getAttribute('data-status')).toBe('block_bounce_risk');
    await expectText(result, 'Bounce risk');
    await expectText(result, 'The domain does not exist.');
    await expectText(result, 'Did you mean');
    await shot(page, 'validate');

    // Following the suggestion validates it (gmail.com is not served by the fixture DNS either).
    await page.getByRole('button', { name: 'ann@gmail.com' }).click();
    await expectText(page.locator('article.result h2'), 'ann@gmail.com');

    await page.getByLabel('Email address').fill('ann@ok.test');
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.locator('article.result[data-status="safe"]').waitFor({ timeout });
    await expectText(page.locator('article.result'), 'The domain receives mail');
    await page.close();
  });

  it('bulk: previews the CSV as the service reads it, uploads, shows the statistics and duplicates, and downloads the results', async () => {
    const { input, expected, statistics } = buildCsv({
      delimiter: ';',
      header: true,
      emailColumn: 2,
      rows: [
        ['first', 'last', 'Work email', 'note'],
        ['Ann', 'A', 'ann@ok.test', 'ok'],
        ['Bob', 'B', 'bob@nowhere.test', 'x;y'],
        ['Cy', 'C', 'abuse@ok.test', ''],
        ['Dee', 'D', 'info@ok.test', 'say "hi"'],
        ['Eve', 'E', 'eve@slow.test', ''],
        ['Ann', 'again', 'ANN@ok.test', 'the same address'],
      ],
    });
    const page = await signedIn();
    await page.getByRole('link', { name: 'Bulk' }).click();
    await page.getByLabel('Drop a CSV file here, or choose one').setInputFiles({
      name: 'leads.csv',
      mimeType: 'text/csv',
      buffer: input,
    });
    await expectText(page.getByTestId('delimiter'), 'semicolon');
    await expectText(page.getByTestId('header'), 'yes');
    // The email column was recognized by its contents and is offered by its header text.
    const column = page.getByLabel('Email column');
    expect(await column.inputValue()).toBe('2');
    await expect(column.locator('option').allTextContents()).resolves.toEqual([
      'first',
      'last',
      'Work email',
      'note',
    ]);
    // The quoted cell is one cell, as the service reads it.
    await expectText(page.locator('.preview tbody tr').nth(1), 'x;y');
    await shot(page, 'bulk-preview');

    await page.getByRole('button', { name: 'Validate leads.csv' }).click();
    await page.locator('.job[data-status="completed"]').waitFor({ timeout: 120_000 });
    for (const [status, count] of Object.entries(statistics))
      await expectText(page.locator(`.stats-table tr[data-status="${status}"] td`).first(), String(count));
    await page.locator('.statistics canvas').first().waitFor({ timeout });
    await expectText(page.getByTestId('duplicates'), '1 of them repeats an address from an earlier row');
    await shot(page, 'bulk-completed');

    const [unique] = await Promise.all([
      page.waitForEvent('download', { timeout }),
      (async () => {
        await page.getByLabel(/Leave out duplicate rows \(1\)/).check();
        await page.getByRole('button', { name: 'Download filtered results (CSV)' }).click();
      })(),
    ]);
    expect(unique.suggestedFilename()).toBe('leads_processed_by_mailvet.unique.csv');
    expect(readFileSync((await unique.path())!).toString()).not.toContain('ANN@ok.test');

    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout }),
      page.getByRole('button', { name: 'Download results (CSV)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('leads_processed_by_mailvet.csv');
    const saved = await download.path();
    expect(readFileSync(saved!).equals(expected)).toBe(true);
    await page.close();
  });

  it("bulk: previews Windows-1252 and UTF-16 files decoded by the browser's TextDecoder, as the service reads them", async () => {
    const page = await signedIn();
    await page.getByRole('link', { name: 'Bulk' }).click();
    const choose = page.getByLabel('Drop a CSV file here, or choose one');
    // 0x80 and 0x93/0x94 are Windows-1252's euro sign and curly quotes (Latin-1 control codes otherwise).
    await choose.setInputFiles({
      name: 'excel.csv',
      mimeType: 'text/csv',
      buffer: iconv.encode('Société;Courriel;Note\r\nCafé;ann@ok.test;“5 €”\r\n', 'windows-1252'),
    });
    await expectText(page.getByTestId('encoding'), 'WINDOWS-1252');
    await expectText(page.getByTestId('delimiter'), 'semicolon');
    expect(await page.getByLabel('Email column').inputValue()).toBe('1');
    await expect(page.locator('.preview th').allTextContents()).resolves.toEqual([
      'Société',
      'Courriel',
      'Note',
    ]);
    await expect(page.locator('.preview tbody td').allTextContents()).resolves.toEqual([
      'Café',
      'ann@ok.test',
      '“5 €”',
    ]);

    await choose.setInputFiles({
      name: 'unicode.txt',
      mimeType: 'text/plain',
      buffer: Buffer.concat([
        Buffer.from([0xff, 0xfe]),
        Buffer.from('名前\tメール\r\n太郎\ttaro@ok.test\r\n', 'utf16le'),
      ]),
    });
    await expectText(page.getByTestId('encoding'), 'UTF-16LE');
    await expectText(page.getByTestId('delimiter'), 'tab');
    await expectText(page.getByTestId('header'), 'yes');
    await expect(page.locator('.preview th').allTextContents()).resolves.toEqual(['名前', 'メール']);
    await expect(page.locator('.preview tbody td').allTextContents()).resolves.toEqual([
      '太郎',
      'taro@ok.test',
    ]);
    await shot(page, 'bulk-preview-utf16');
    await page.close();
  });

  it('bulk: says so when the upload address has expired', async () => {
    const page = await signedIn();
    await page.getByRole('link', { name: 'Bulk' }).click();
    await page.getByLabel('Drop a CSV file here, or choose one').setInputFiles({
      name: 'late.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('email\nann@ok.test\n'),
    });
    // Hold the PUT back until the presigned address (20 s here) has expired, then let it through.
    let released = false;
    await page.route(/X-Amz-Signature=/, async (route) => {
      if (route.request().method() === 'PUT') {
        const url = new URL(route.request().url());
        const signedAt = url.searchParams.get('X-Amz-Date')!;
        const expiresAt =
          Date.parse(
            `${signedAt.slice(0, 4)}-${signedAt.slice(4, 6)}-${signedAt.slice(6, 8)}T${signedAt.slice(9, 11)}:${signedAt.slice(11, 13)}:${signedAt.slice(13, 15)}Z`,
          ) +
          Number(url.searchParams.get('X-Amz-Expires')) * 1000;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 1500));
        released = true;
      }
      await route.continue();
    });
    await page.getByRole('button', { name: 'Validate late.csv' }).click();
    await expectText(page.getByRole('alert'), 'The upload address has expired (it lasts 20 seconds', 60_000);
    expect(released).toBe(true);
    await shot(page, 'bulk-expired');
    await page.close();
  });

  it("bulk: shows a failed job's error", async () => {
    const page = await signedIn();
    await page.getByRole('link', { name: 'Bulk' }).click();
    await page.getByLabel('Drop a CSV file here, or choose one').setInputFiles({
      name: 'titles-only.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('email,name\n'),
    });
    await expectText(page.getByTestId('header'), 'yes');
    await page.getByRole('button', { name: 'Validate titles-only.csv' }).click();
    await page.locator('.job[data-status="failed"]').waitFor({ timeout: 120_000 });
    await expectText(page.getByRole('alert'), 'The job failed: The file has no data rows.');
    await shot(page, 'bulk-failed');
    await page.close();
  });

  it('bulk: "Estimate first" shows the projection and the validations a full run uses, then runs it', async () => {
    const rows = [['email']];
    for (let i = 0; i < 1200; i++) rows.push([i % 4 === 0 ? `p${i}@nowhere.test` : `p${i}@ok.test`]);
    const { input, statistics } = buildCsv({ delimiter: ',', header: true, emailColumn: 0, rows });
    const page = await signedIn();
    await page.getByRole('link', { name: 'Bulk' }).click();
    await page.getByLabel('Drop a CSV file here, or choose one').setInputFiles({
      name: 'prospects.csv',
      mimeType: 'text/csv',
      buffer: input,
    });
    await page.getByLabel('Estimate first').check();
    await page.getByRole('button', { name: 'Estimate prospects.csv' }).click();
    const estimate = page.getByTestId('estimate');
    await estimate.waitFor({ timeout: 120_000 });
    await expectText(estimate, 'A random sample of 1,000 of the 1,200 rows was validated');
    await expectText(
      page.getByTestId('estimate-cost'),
      'will use 1,200 validations (this estimate used 1,000)',
    );
    // projected to the whole file: about 900 safe and 300 bounce risk, summing to 1,200
    const projected = await estimate.locator('.stats-table tbody tr td:first-of-type').allTextContents();
    const counts = projected.map((text) => Number(text.replace(/,/g, '')));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1200);
    expect(Math.abs(counts[0]! - 900)).toBeLessThan(80);
    // an estimate has nothing to download
    expect(await page.getByRole('button', { name: 'Download results (CSV)' }).count()).toBe(0);
    await shot(page, 'bulk-estimate');

    await page.getByRole('button', { name: 'Validate all 1,200 rows' }).click();
    const run = estimate.locator('.job[data-status="completed"]');
    await run.waitFor({ timeout: 120_000 });
    for (const [status, count] of Object.entries(statistics))
      await expectText(
        run.locator(`.stats-table tr[data-status="${status}"] td`).first(),
        count.toLocaleString('en-US'),
      );
    await run.getByRole('button', { name: 'Download results (CSV)' }).waitFor({ timeout });
    await shot(page, 'bulk-estimate-run');
    await page.close();
  });

  it('bulk: explains the 5-job limit and its wait', async () => {
    // Globex fills its five slots through the API; the console then asks for a sixth.
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${runtime.baseUrl}/v1/email/validate-file`, {
        method: 'POST',
        headers: { 'x-api-key': runtime.keys.other, 'content-type': 'application/json' },
        body: JSON.stringify({ emailColumn: 0 }),
      });
      expect(response.status).toBe(202);
    }
    const page = await signedIn(runtime.keys.other);
    await page.getByRole('link', { name: 'Bulk' }).click();
    await page.getByLabel('Drop a CSV file here, or choose one').setInputFiles({
      name: 'sixth.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('email\nann@ok.test\n'),
    });
    await page.getByRole('button', { name: 'Validate sixth.csv' }).click();
    await expectText(page.getByRole('alert'), 'You already have 5 jobs');
    await expectText(page.getByRole('alert'), 'try again in 60 seconds');
    await page.close();
  });

  it('workspace: mailbox sparklines follow the reputation window; a mailbox chart follows its date range', async () => {
    const page = await signedIn();
    await page.getByRole('link', { name: 'Mailboxes' }).click();
    const table = page.getByTestId('mailboxes');
    await table.waitFor({ timeout });
    const rows = await table.locator('tbody tr').count();
    expect(rows).toBeGreaterThan(0);
    await eventually(
      () => table.locator('.sparkline canvas').count(),
      (n) => expect(n).toBe(rows),
    );
    await expectText(page.locator('main'), 'average from');

    await page.getByLabel('Reputation window').selectOption('last7Days');
    const today = new Date().toISOString().slice(0, 10);
    const weekAgo = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
    await expectText(page.locator('main'), `average from ${weekAgo} to ${today}`);
    await eventually(
      () => table.locator('.sparkline canvas').count(),
      (n) => expect(n).toBe(rows),
    );
    await shot(page, 'mailboxes');

    await table.locator('tbody tr a').first().click();
    const caption = page.getByTestId('chart-caption');
    await expectText(caption, ': 90 days');
    await page.locator('figure canvas').first().waitFor({ timeout });
    // The connection date is said once, with the connection's state.
    await expectText(page.getByTestId('connection'), ' since ');
    await expect(page.locator('dl.details dt').allTextContents()).resolves.toEqual([
      'Current reputation',
      'Owner',
      'Provider',
      'Connection',
    ]);
    await shot(page, 'mailbox');
    await page.getByRole('button', { name: '30 days' }).click();
    await expectText(caption, ': 30 days');
    await page.getByLabel('From', { exact: true }).fill(weekAgo);
    await page.getByRole('button', { name: 'Show' }).click();
    await expectText(caption, `${weekAgo} to ${today}: 7 days`);
    await page.close();
  });

  it('workspace: domains list', async () => {
    const page = await signedIn();
    await page.getByRole('link', { name: 'Domains' }).click();
    await expectText(page.locator('main table'), 'acme.example');
    // The page's heading takes focus when the page opens, and the navigation marks the current page.
    expect(
      await page.evaluate('document.activeElement.tagName + " " + document.activeElement.textContent'),
    ).toBe('H1 Domains');
    expect(await page.getByRole('link', { name: 'Domains' }).getAttribute('aria-current')).toBe('page');
    await shot(page, 'domains');
    await page.close();
  });

  it('workspace: an admin key invites a user; a member key is told why it cannot', async () => {
    const page = await signedIn();
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByTestId('users').waitFor({ timeout });
    await page.getByLabel('Email', { exact: true }).fill('new.hire@acme.example');
    await page.getByLabel('Name (optional)').fill('New Hire');
    await page.getByLabel('Role').selectOption('member');
    await page.getByRole('button', { name: 'Send invite' }).click();
    await expectText(
      page.getByRole('status').filter({ hasText: 'Invitation sent' }),
      'new.hire@acme.example',
    );
    await expectText(page.getByTestId('users'), 'new.hire@acme.example');
    await shot(page, 'users');

    const listed = await fetch(`${runtime.baseUrl}/v1/users?status=invited`, {
      headers: { 'x-api-key': runtime.keys.admin },
    }).then((r) => r.json() as Promise<{ users: { email: string }[] }>);
    expect(listed.users.map((u) => u.email)).toContain('new.hire@acme.example');

    const member = await signedIn(runtime.keys.member, await browser.context.newPage());
    await member.getByRole('link', { name: 'Users' }).click();
    await member.getByLabel('Email', { exact: true }).fill('another@acme.example');
    await member.getByRole('button', { name: 'Send invite' }).click();
    await expectText(member.getByRole('alert'), 'cannot invite users');
    await member.close();
    await page.close();
  });

  it('workspace: toggles the Safety Net for a mailbox and it stays toggled', async () => {
    const page = await signedIn();
    await page.getByRole('link', { name: 'Safety Net' }).click();
    const toggle = page.getByRole('switch', { name: 'Safety Net for max.member@acme.example' });
    await toggle.waitFor({ timeout });
    const before = await toggle.getAttribute('aria-checked');
    await toggle.click();
    const after = before === 'true' ? 'false' : 'true';
    await eventually(
      () => toggle.getAttribute('aria-checked'),
      (v) => expect(v).toBe(after),
    );
    await shot(page, 'safety-net');

    const listed = await fetch(`${runtime.baseUrl}/v1/safety-net-mailboxes?limit=1000`, {
      headers: { 'x-api-key': runtime.keys.admin },
    }).then((r) => r.json() as Promise<{ mailboxes: { email: string; activated: boolean }[] }>);
    expect(listed.mailboxes.find((m) => m.email === 'max.member@acme.example')?.activated).toBe(
      after === 'true',
    );
    await page.reload();
    await eventually(
      () =>
        page
          .getByRole('switch', { name: 'Safety Net for max.member@acme.example' })
          .getAttribute('aria-checked'),
      (v) => expect(v).toBe(after),
    );
    await page.close();
  });

  it('jobs: lists the jobs with state and file name, filters by state, opens one, downloads it filtered, deletes it', async () => {
    const client = createMailvetClient({ baseUrl: runtime.baseUrl, apiKey: runtime.keys.admin });
    const { input, expected } = buildCsv({
      delimiter: ',',
      header: true,
      emailColumn: 1,
      rows: [
        ['name', 'email'],
        ['Ann', 'ann@ok.test'],
        ['Bob', 'bob@nowhere.test'],
        ['Cy', 'abuse@ok.test'],
        ['Dan', 'dan@gone.test'],
      ],
    });
    const done = await client.validateFile(input, {
      emailColumn: 1,
      fileName: 'people.csv',
      pollIntervalMs: 200,
    });
    expect(done.job.status).toBe('completed');
    const waiting = await client.createJob({ emailColumn: 0, fileName: 'waiting.csv' });

    const page = await signedIn();
    await page.getByRole('link', { name: 'Jobs' }).click();
    const table = page.getByTestId('jobs');
    const row = (id: string) => table.locator(`tr[data-job="${id}"]`);
    await row(done.jobId).waitFor({ timeout });
    await expectText(row(done.jobId), 'people.csv');
    await expectText(row(done.jobId), 'Completed');
    await expectText(row(done.jobId), '100% · 4 of 4');
    await expectText(row(waiting.jobId), 'waiting.csv');
    await expectText(row(waiting.jobId), 'Waiting for the file');
    expect(await page.getByRole('link', { name: 'Jobs' }).getAttribute('aria-current')).toBe('page');
    await shot(page, 'jobs');
    // Wide enough for every column: no hint about scrolling.
    expect(await page.getByTestId('jobs-scroll-hint').count()).toBe(0);
    // A job with nothing counted (waiting, expired, failed before its count) shows a dash, not "0 of 0".
    expect(await table.textContent()).not.toContain('0 of 0');

    // The state filter asks the API for that state only.
    await page.getByLabel('Show').selectOption('completed');
    await row(waiting.jobId).waitFor({ state: 'detached', timeout });
    await row(done.jobId).waitFor({ timeout });
    for (const status of await table
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status'))))
      expect(status).toBe('completed');

    await row(done.jobId).getByRole('link', { name: 'people.csv' }).click();
    await expectText(page.locator('h1'), 'people.csv');
    expect(await page.getByRole('link', { name: 'Jobs', exact: true }).getAttribute('aria-current')).toBe(
      'page',
    );
    await expectText(page.locator('.stats-table tr[data-status="block_bounce_risk"] td').first(), '2');
    await page.locator('.statistics canvas').first().waitFor({ timeout });

    // The full file, as on the bulk page...
    const [full] = await Promise.all([
      page.waitForEvent('download', { timeout }),
      page.getByRole('button', { name: 'Download results (CSV)' }).click(),
    ]);
    expect(full.suggestedFilename()).toBe('people_processed_by_mailvet.csv');
    expect(readFileSync((await full.path())!).equals(expected)).toBe(true);

    // ...and only the bounce-risk rows, with the reason column.
    await page.getByRole('checkbox', { name: 'Bounce risk' }).check();
    await page.getByLabel('Add the reason column').check();
    await shot(page, 'job');
    const [filtered] = await Promise.all([
      page.waitForEvent('download', { timeout }),
      page.getByRole('button', { name: 'Download filtered results (CSV)' }).click(),
    ]);
    expect(filtered.suggestedFilename()).toMatch(/^people_processed_by_mailvet\..*block_bounce_risk.*\.csv$/);
    expect(readFileSync((await filtered.path())!, 'utf8')).toBe(
      [
        'name,email,mailvet_status,mailvet_reason',
        'Bob,bob@nowhere.test,block_bounce_risk,no_such_domain',
        'Dan,dan@gone.test,block_bounce_risk,no_such_domain',
        '',
      ].join('\n'),
    );

    // Deleting asks first; Cancel keeps the job and gives focus back.
    await page.getByRole('button', { name: 'Delete job' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Delete people.csv?' });
    await dialog.waitFor({ timeout });
    const focused = () => page.evaluate('document.activeElement.textContent.trim()');
    await eventually(focused, (text) => expect(text).toBe('Cancel'));
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached', timeout });
    await eventually(focused, (text) => expect(text).toBe('Delete job'));
    // Escape says no as well.
    await page.keyboard.press('Enter');
    await dialog.waitFor({ timeout });
    await eventually(focused, (text) => expect(text).toBe('Cancel'));
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached', timeout });
    await eventually(focused, (text) => expect(text).toBe('Delete job'));
    expect(
      (
        await fetch(`${runtime.baseUrl}/v1/email/validate-file/${done.jobId}`, {
          headers: { 'x-api-key': runtime.keys.admin },
        })
      ).status,
    ).toBe(200);

    await page.getByRole('button', { name: 'Delete job' }).click();
    await page.getByRole('button', { name: 'Delete for good' }).click();
    await expectText(page.getByRole('status'), 'The job and its files were deleted.');
    const gone = await fetch(`${runtime.baseUrl}/v1/email/validate-file/${done.jobId}`, {
      headers: { 'x-api-key': runtime.keys.admin },
    });
    expect(gone.status).toBe(404);
    await page.getByRole('link', { name: '← All jobs' }).click();
    await row(waiting.jobId).waitFor({ timeout });
    expect(await row(done.jobId).count()).toBe(0);
    await page.close();
  });

  it("usage: this month's use against quota and credits, what is left, and another month", async () => {
    const usage = (month?: string) =>
      fetch(`${runtime.baseUrl}/v1/usage${month ? `?month=${month}` : ''}`, {
        headers: { 'x-api-key': runtime.keys.other },
      }).then((r) => r.json() as Promise<Usage>);
    const now = await usage();
    const page = await signedIn(runtime.keys.other);
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByTestId('usage').waitFor({ timeout });
    const quotaLeft = now.remaining - now.creditsRemaining;
    await expectText(page.getByTestId('remaining'), String(now.remaining));
    await expectText(page.getByTestId('quota-left'), `${quotaLeft} of ${now.quota}`);
    await expectText(page.getByTestId('credits'), String(now.creditsRemaining));
    await expectText(page.getByTestId('used'), String(now.used.total));
    // Globex (the demo data): a few validations of its quota left, then its credits.
    expect(quotaLeft).toBeGreaterThan(0);
    expect(now.creditsRemaining).toBeGreaterThan(0);
    await expectText(
      page.getByTestId('usage-verdict'),
      `You can validate ${now.remaining} more addresses this month: ${quotaLeft} left of the monthly quota, then ${now.creditsRemaining} credits.`,
    );
    expect(await page.getByLabel(/^Monthly quota used/).getAttribute('value')).toBe(String(now.used.total));
    await shot(page, 'usage');

    const [year, month] = now.month.split('-').map(Number) as [number, number];
    const previous = month === 1 ? `${year - 1}-12` : `${year}-${String(month - 1).padStart(2, '0')}`;
    const before = await usage(previous);
    await page.getByLabel('Month', { exact: true }).fill(previous);
    await expectText(page.getByTestId('usage'), `${previous}-01 to`);
    await expectText(page.getByTestId('used'), String(before.used.total));
    await expectText(page.getByTestId('quota-left'), `0 of ${before.quota}`);
    await page.getByRole('button', { name: 'This month' }).click();
    await expectText(page.getByTestId('used'), String(now.used.total));
    await page.close();
  });

  it('says a job whose rows are not counted yet is reading the file, not "0 of 0 emails"', async () => {
    const client = createMailvetClient({ baseUrl: runtime.baseUrl, apiKey: runtime.keys.admin });
    const created = await client.createJob({ emailColumn: 0, fileName: 'counting.csv' });
    const page = await signedIn();
    // Held at the moment between the upload and the scan's count: the API answers as it does then.
    const counting = {
      completedAt: null,
      createdAt: new Date().toISOString(),
      jobId: created.jobId,
      percentComplete: 0,
      processedEmails: 0,
      statistics: null,
      status: 'processing',
      totalEmails: 0,
    };
    await page.route(`**/v1/email/validate-file/${created.jobId}`, (route) =>
      route.fulfill({ json: counting }),
    );
    await page.goto(`${runtime.baseUrl}/#/job/${created.jobId}`);
    await expectText(page.getByRole('status'), 'Processing · reading the file and counting its rows');
    expect(await page.getByRole('status').textContent()).not.toContain('0 of 0');
    await shot(page, 'job-counting');
    await client.deleteJob(created.jobId);
    await page.close();
  });

  it('works at 360 px wide: no sideways scrolling on the bulk, mailbox, jobs, job and usage pages', async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 360, height: 740 });
    await signedIn(runtime.keys.admin, page);
    await page.getByRole('link', { name: 'Bulk' }).click();
    await page.getByLabel('Drop a CSV file here, or choose one').setInputFiles({
      name: 'narrow.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('name,email,company,title,city\nAnn,ann@ok.test,Acme,CEO,Paris\n'),
    });
    await expectText(page.getByTestId('delimiter'), 'comma');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await shot(page, 'narrow-bulk');
    await page.getByRole('link', { name: 'Mailboxes' }).click();
    await page.getByTestId('mailboxes').locator('tbody tr a').first().click();
    await page.locator('figure canvas').first().waitFor({ timeout });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await shot(page, 'narrow-mailbox');
    await page.getByRole('link', { name: 'Jobs' }).click();
    await page.getByTestId('jobs').waitFor({ timeout });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    // The table is wider than the screen: it scrolls in its own region, and says so.
    await page.getByTestId('jobs-scroll-hint').waitFor({ timeout });
    await shot(page, 'narrow-jobs');
    await page.getByTestId('jobs').locator('tbody tr a').first().click();
    await page.getByRole('button', { name: 'Delete job' }).waitFor({ timeout });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await shot(page, 'narrow-job');
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByTestId('usage').waitFor({ timeout });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await shot(page, 'narrow-usage');
    await page.close();
  });

  it('made no request outside the API and its presigned storage addresses', () => {
    const allowed = new Set([new URL(runtime.baseUrl).origin, new URL(runtime.runtime.endpoints.s3).origin]);
    const outside = requests.filter((u) => !u.startsWith('data:') && !allowed.has(new URL(u).origin));
    expect(requests.length).toBeGreaterThan(10);
    expect(outside).toEqual([]);
  });

  it('raised no script error and broke no rule of its Content-Security-Policy', async () => {
    const response = await fetch(runtime.baseUrl + '/');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(pageErrors).toEqual([]);
  });
});

/** Probes until `check` passes (a page updates when its requests answer), failing with its last error. */
async function eventually<T>(
  probe: () => Promise<T>,
  check: (value: T) => void,
  wait = timeout,
): Promise<void> {
  const deadline = Date.now() + wait;
  for (;;) {
    try {
      check(await probe());
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function expectText(locator: Locator, text: string, wait = timeout): Promise<void> {
  await eventually(
    async () =>
      (await locator
        .first()
        .textContent({ timeout: wait })
        .catch(() => '')) ?? '',
    (value) => expect(value).toContain(text),
    wait,
  );
}
