// People end to end on the local runtime with its Cognito emulator, in headless Chromium: an admin
// signs in with email and password and invites a new address; the link from the outbox opens the
// accept page; the invitee chooses a password and is an active user with an id; the link then (and an
// expired invite's link) is refused with 410; the new member signs in, sees the workspace, and is
// refused an invite (403). Screenshots in test-artifacts/console/ (copied to docs/console/).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Locator, Page } from 'playwright-core';
import { dynamoDb, tableName } from '../../functions/clients/dynamodb';
import { userKey } from '../../functions/store/keys';
import { demoPasswords } from '../../local/demo/people';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import { inviteLinkToken, outboxFiles } from '../helpers/people';
import { chromiumPath, launchChromium, screenshotDir, type Browser } from './chromium';

jest.setTimeout(180_000);
const timeout = 60_000;

if (!chromiumPath) throw new Error('The people browser test needs Chromium (apt-get install -y chromium)');

let runtime: TestRuntime;
let browser: Browser;
const pageErrors: string[] = [];

beforeAll(async () => {
  mkdirSync(screenshotDir, { recursive: true });
  runtime = await startTestRuntime({ RATE_LIMIT_PER_SECOND: '1000' }, { people: true });
  browser = await launchChromium({ viewport: { width: 1100, height: 760 } });
  browser.context.on('weberror', (e) => pageErrors.push(String(e.error())));
  browser.context.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) pageErrors.push(m.text());
  });
});

afterAll(async () => {
  await browser?.close();
  await runtime?.stop();
});

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true });

async function expectText(locator: Locator, text: string): Promise<void> {
  await locator.filter({ hasText: text }).first().waitFor({ timeout });
}

async function signInAsPerson(page: Page, email: string, password: string): Promise<void> {
  await page.goto(runtime.baseUrl + '/');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout });
}

async function api(method: string, route: string, body?: unknown) {
  const response = await fetch(`${runtime.baseUrl}${route}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': runtime.keys.admin },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, text: await response.text() };
}

it('an invite accepted in the console makes an active member who signs in and may not invite', async () => {
  const outbox = runtime.runtime.env.INVITE_OUTBOX_DIR!;
  const email = 'pat.newcomer@acme.example';
  const password = 'Pat-chose-this-1!';

  // The admin signs in as a person and invites the new address from the Users page.
  const admin = await browser.context.newPage();
  await signInAsPerson(admin, 'ada.admin@acme.example', demoPasswords['ada.admin@acme.example']!);
  await expectText(admin.locator('header'), 'ada.admin@acme.example');
  await admin.getByRole('link', { name: 'Users' }).click();
  await admin.getByTestId('users').waitFor({ timeout });
  const seen = outboxFiles(outbox);
  await admin.getByLabel('Email', { exact: true }).fill(email);
  await admin.getByRole('button', { name: 'Send invite' }).click();
  await expectText(admin.getByRole('status'), 'Invitation sent');

  // The link from the email, opened in a fresh tab: the accept page.
  const { url, token } = await inviteLinkToken(outbox, email, { seen });
  const invitee = await browser.context.newPage();
  await invitee.goto(url);
  await invitee.getByRole('heading', { name: 'Join your team on mailvet' }).waitFor({ timeout });
  await invitee.getByLabel('Your name (optional)').fill('Pat Newcomer');
  await invitee.getByLabel('Password', { exact: true }).fill('too-weak');
  await invitee.getByLabel('Password again').fill('too-weak');
  await invitee.getByRole('button', { name: 'Join the workspace' }).click();
  await expectText(invitee.getByRole('alert'), 'at least 12 characters');
  await invitee.getByLabel('Password', { exact: true }).fill(password);
  await invitee.getByLabel('Password again').fill(password);
  await shot(invitee, 'accept-invite');
  await invitee.getByRole('button', { name: 'Join the workspace' }).click();
  // Accepted and signed in: the workspace's users, the new member among them, active.
  await invitee.getByTestId('users').waitFor({ timeout });
  await expectText(invitee.locator('header'), email);

  const users = JSON.parse((await api('GET', '/v1/users?limit=100')).text) as {
    users: { email: string; id: string | null; status: string; name: string }[];
  };
  const joined = users.users.find((u) => u.email === email);
  expect(joined).toMatchObject({ status: 'active', name: 'Pat Newcomer' });
  expect(joined?.id).toMatch(/^[0-9a-f-]{36}$/);

  // The same link again: 410, and the page says the link is no longer valid.
  const again = await fetch(`${runtime.baseUrl}/v1/invites/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, password }),
  });
  expect(again.status).toBe(410);
  expect(await again.text()).toBe('{"error":"This invite link is no longer valid"}');
  const used = await browser.context.newPage();
  await used.goto(url);
  await used.getByLabel('Password', { exact: true }).fill(password);
  await used.getByLabel('Password again').fill(password);
  await used.getByRole('button', { name: 'Join the workspace' }).click();
  await used.getByRole('heading', { name: 'Invite link no longer valid' }).waitFor({ timeout });
  await shot(used, 'accept-invite-used');

  // An expired invite's link: 410 as well.
  const lateSeen = outboxFiles(outbox);
  expect((await api('POST', '/v1/users', { email: 'too.late@acme.example' })).status).toBe(201);
  const late = await inviteLinkToken(outbox, 'too.late@acme.example', { seen: lateSeen });
  await dynamoDb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: userKey(runtime.ids.acme, 'too.late@acme.example'),
      UpdateExpression: 'SET inviteExpiresAt = :past',
      ExpressionAttributeValues: { ':past': '2020-01-01T00:00:00.000Z' },
    }),
  );
  const expired = await fetch(`${runtime.baseUrl}/v1/invites/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: late.token, password }),
  });
  expect(expired.status).toBe(410);

  // The new member signs in on the sign-in page, sees the workspace, and is refused an invite (403).
  const member = await browser.context.newPage();
  await member.goto(runtime.baseUrl + '/');
  await member.getByRole('heading', { name: 'Sign in with your email' }).waitFor({ timeout });
  await member.getByLabel('Email', { exact: true }).fill(email);
  await member.getByLabel('Password', { exact: true }).fill(password);
  await shot(member, 'sign-in-person');
  await member.getByRole('button', { name: 'Sign in', exact: true }).click();
  await member.getByRole('navigation', { name: 'Main' }).waitFor({ timeout });
  await member.getByRole('link', { name: 'Users' }).click();
  await expectText(member.getByTestId('users'), 'ada.admin@acme.example');
  const refusals: number[] = [];
  member.on('response', (response) => {
    if (response.url().endsWith('/v1/users') && response.request().method() === 'POST')
      refusals.push(response.status());
  });
  await member.getByLabel('Email', { exact: true }).fill('friend@acme.example');
  await member.getByRole('button', { name: 'Send invite' }).click();
  await expectText(member.getByRole('alert'), 'cannot invite users');
  expect(refusals).toEqual([403]);

  // Sign out forgets the token: the sign-in page again, and nothing left in sessionStorage.
  await member.getByRole('button', { name: 'Sign out' }).click();
  await member.getByRole('heading', { name: 'Sign in with your email' }).waitFor({ timeout });
  expect(await member.evaluate('sessionStorage.length')).toBe(0);
  expect(pageErrors).toEqual([]);
});

it('refuses a wrong password with a plain message', async () => {
  const page = await browser.context.newPage();
  await page.goto(runtime.baseUrl + '/');
  await page.getByLabel('Email', { exact: true }).fill('max.member@acme.example');
  await page.getByLabel('Password', { exact: true }).fill('Not-his-Passw0rd!');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expectText(page.getByRole('alert'), 'That email and password do not match');
});

it('lets an admin create and revoke their own API key; the new key works until revoked', async () => {
  const page = await browser.context.newPage();
  await signInAsPerson(page, 'ada.admin@acme.example', demoPasswords['ada.admin@acme.example']!);
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.getByLabel('Name').fill('CRM sync');
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = (await page.getByTestId('new-key').textContent({ timeout }))!.trim();
  expect(key).toMatch(/^mv_live_/);
  await expectText(page.getByTestId('api-keys'), 'CRM sync');
  await shot(page, 'api-keys');
  const withKey = () =>
    fetch(`${runtime.baseUrl}/v1/usage`, { headers: { 'x-api-key': key } }).then((r) => r.status);
  expect(await withKey()).toBe(200);
  page.once('dialog', (dialog) => void dialog.accept());
  const row = page.getByRole('row').filter({ hasText: 'CRM sync' });
  await row.getByRole('button', { name: 'Revoke' }).click();
  await expectText(row, 'revoked');
  // AUTH_CACHE_SECONDS may keep the key's answer a few seconds in the API's process.
  const deadline = Date.now() + 15_000;
  while ((await withKey()) !== 403 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
  expect(await withKey()).toBe(403);

  const member = await browser.context.newPage();
  await signInAsPerson(member, 'max.member@acme.example', demoPasswords['max.member@acme.example']!);
  await member.getByRole('link', { name: 'API keys' }).click();
  await expectText(member.locator('main'), 'Only an admin of your workspace can create and revoke API keys');
});

it('resets a forgotten password from the sign-in page through the emailed link', async () => {
  const outbox = runtime.runtime.env.INVITE_OUTBOX_DIR!;
  const page = await browser.context.newPage();
  await page.goto(runtime.baseUrl + '/');
  await page.getByRole('link', { name: 'Forgotten your password?' }).click();
  const seen = outboxFiles(outbox);
  await page.getByLabel('Email', { exact: true }).fill('gina.admin@globex.example');
  await page.getByRole('button', { name: 'Email me a link' }).click();
  await expectText(page.getByRole('status'), 'If this address belongs to a mailvet account');
  const { url } = await inviteLinkToken(outbox, 'gina.admin@globex.example', {
    seen,
    page: 'reset-password',
  });
  const reset = await browser.context.newPage();
  await reset.goto(url);
  const fresh = 'Gina-fresh-Passw0rd!';
  await reset.getByLabel('New password', { exact: true }).fill(fresh);
  await reset.getByLabel('New password again').fill(fresh);
  await shot(reset, 'reset-password');
  await reset.getByRole('button', { name: 'Set the password' }).click();
  await expectText(reset.getByRole('status'), 'Your password is changed');
  const signIn = await browser.context.newPage();
  await signInAsPerson(signIn, 'gina.admin@globex.example', fresh);
  await expectText(signIn.locator('header'), 'gina.admin@globex.example');
});
