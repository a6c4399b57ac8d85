// POST /v1/invites/accept through its handler on DynamoDB Local, with the user pool's admin API
// replaced by aws-sdk-client-mock: what the pool is asked, what its refusals become, and that neither
// the link's token nor the password nor an address reaches a log line.
import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminGetUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { resetCognito } from '../../functions/clients/cognito';
import { acceptInviteRoute } from '../../functions/handlers/accept-invite';
import { inviteUserRoute } from '../../functions/handlers/invite-user';
import { publicApiHandler } from '../../functions/http/api-handler';
import { resetSettings } from '../../functions/settings';
import { inviteEmailKey, personKey } from '../../functions/store/keys';
import { putPerson } from '../../functions/store/people';
import { demoKeys } from '../../local/demo/accounts';
import { apiEvent, lambdaContext } from '../../local/events';
import { readRawItem } from '../helpers/raw-items';
import { call, startWorkspaceDb, type WorkspaceDb } from './workspace-harness';

const cognitoMock = mockClient(CognitoIdentityProviderClient);
const sqsMock = mockClient(SQSClient);
const now = new Date('2026-05-04T10:00:00.000Z');
const clock = () => now;
const password = 'Correct-horse-b4ttery!';
let db: WorkspaceDb;

beforeAll(async () => {
  db = await startWorkspaceDb();
  process.env.PEOPLE_USER_POOL_ID = 'us-east-1_TestPool';
  process.env.CONSOLE_URL = 'https://console.example';
  resetSettings();
  resetCognito();
});
afterAll(async () => {
  delete process.env.PEOPLE_USER_POOL_ID;
  delete process.env.CONSOLE_URL;
  await db.stop();
});
beforeEach(() => {
  cognitoMock.reset();
  sqsMock.reset();
  sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
});

/** Invites `email` as the demo admin; the one-time token the queue message carries to the email. */
async function invite(email: string): Promise<string> {
  const res = await call(inviteUserRoute(clock), { key: demoKeys.admin, method: 'POST', body: { email } });
  expect(res.statusCode).toBe(201);
  const sends = sqsMock.commandCalls(SendMessageCommand);
  const { link } = JSON.parse(sends.at(-1)!.args[0].input.MessageBody!) as { link: string };
  return link.slice(link.lastIndexOf('/') + 1);
}

async function accept(body: unknown) {
  const result = await publicApiHandler(acceptInviteRoute(clock))(
    apiEvent({ method: 'POST', path: '/v1/invites/accept', headers: {}, body: JSON.stringify(body) }),
    lambdaContext(),
  );
  return { statusCode: result.statusCode, body: JSON.parse(result.body ?? '{}') };
}

/** Runs `act` at debug level and returns every log line it wrote. */
async function logsOf(act: () => Promise<void>): Promise<string> {
  const lines: string[] = [];
  const capture = (chunk: unknown) => (lines.push(String(chunk)), true);
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(capture);
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(capture);
  const level = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = 'debug';
  resetSettings();
  try {
    await act();
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
    process.env.LOG_LEVEL = level;
    resetSettings();
  }
  return lines.join('');
}

it('creates the person (no welcome email, a permanent password) and logs no token, password or address', async () => {
  const token = await invite('quiet.joiner@acme.example');
  cognitoMock.on(AdminCreateUserCommand).resolves({
    User: { Attributes: [{ Name: 'sub', Value: 'sub-quiet-1' }] },
  });
  cognitoMock.on(AdminSetUserPasswordCommand).resolves({});
  let answer: Awaited<ReturnType<typeof accept>> | undefined;
  const logs = await logsOf(async () => {
    answer = await accept({ token, password });
  });
  expect(answer).toMatchObject({
    statusCode: 200,
    body: { status: 'active', email: 'quiet.joiner@acme.example' },
  });
  expect(cognitoMock.commandCalls(AdminCreateUserCommand)[0]!.args[0].input).toEqual({
    UserPoolId: 'us-east-1_TestPool',
    Username: 'quiet.joiner@acme.example',
    UserAttributes: [
      { Name: 'email', Value: 'quiet.joiner@acme.example' },
      { Name: 'email_verified', Value: 'true' },
    ],
    MessageAction: 'SUPPRESS',
  });
  expect(cognitoMock.commandCalls(AdminSetUserPasswordCommand)[0]!.args[0].input).toEqual({
    UserPoolId: 'us-east-1_TestPool',
    Username: 'quiet.joiner@acme.example',
    Password: password,
    Permanent: true,
  });
  expect(await readRawItem(personKey('sub-quiet-1'))).toMatchObject({
    companyId: db.accounts.acmeId,
    email: 'quiet.joiner@acme.example',
    userId: answer!.body.id,
  });
  expect(logs).toContain('invite accepted');
  expect(logs).not.toContain(token);
  expect(logs).not.toContain(password);
  expect(logs).not.toMatch(/quiet\.joiner@acme\.example/);
});

it("turns the pool's refusal of a password into a 400 with its words, removes the half-made person, and frees the link", async () => {
  const token = await invite('history.check@acme.example');
  cognitoMock
    .on(AdminCreateUserCommand)
    .resolves({ User: { Attributes: [{ Name: 'sub', Value: 'sub-h' }] } });
  cognitoMock
    .on(AdminSetUserPasswordCommand)
    .rejectsOnce(
      Object.assign(new Error('Password did not conform with policy: Password has previously been used'), {
        name: 'InvalidPasswordException',
      }),
    )
    .resolves({});
  cognitoMock.on(AdminDeleteUserCommand).resolves({});
  expect(await accept({ token, password })).toEqual({
    statusCode: 400,
    body: { error: 'Password did not conform with policy: Password has previously been used' },
  });
  expect(cognitoMock.commandCalls(AdminDeleteUserCommand)).toHaveLength(1);
  // The claim was released: the same link works at once with another password.
  expect((await accept({ token, password: 'Another-g00d-password!' })).statusCode).toBe(200);
});

it('refuses (409) an email that already signs in to a workspace, and keeps the invite', async () => {
  const token = await invite('elsewhere@acme.example');
  cognitoMock
    .on(AdminCreateUserCommand)
    .rejects(Object.assign(new Error('exists'), { name: 'UsernameExistsException' }));
  cognitoMock.on(AdminGetUserCommand).resolves({ UserAttributes: [{ Name: 'sub', Value: 'sub-elsewhere' }] });
  await putPerson({
    sub: 'sub-elsewhere',
    companyId: db.accounts.globexId,
    email: 'elsewhere@acme.example',
    userId: '0b10be00-0000-4000-8000-0000000000ff',
    createdAt: now.toISOString(),
  });
  expect(await accept({ token, password })).toEqual({
    statusCode: 409,
    body: { error: 'This email already signs in to a mailvet workspace' },
  });
  expect(cognitoMock.commandCalls(AdminSetUserPasswordCommand)).toHaveLength(0);
});

it('finishes an acceptance whose person the pool has but no workspace user points at yet', async () => {
  const token = await invite('second.try@acme.example');
  cognitoMock
    .on(AdminCreateUserCommand)
    .rejects(Object.assign(new Error('exists'), { name: 'UsernameExistsException' }));
  cognitoMock.on(AdminGetUserCommand).resolves({ UserAttributes: [{ Name: 'sub', Value: 'sub-second' }] });
  cognitoMock.on(AdminSetUserPasswordCommand).resolves({});
  const answer = await accept({ token, password });
  expect(answer.statusCode).toBe(200);
  expect(cognitoMock.commandCalls(AdminSetUserPasswordCommand)).toHaveLength(1);
  expect(await readRawItem(personKey('sub-second'))).toMatchObject({ userId: answer.body.id });
});

it('keeps the link out of the stored email: its text has the placeholder, only the queue message the link', async () => {
  const token = await invite('placeholder.check@acme.example');
  const { outboxId, link } = JSON.parse(
    sqsMock.commandCalls(SendMessageCommand).at(-1)!.args[0].input.MessageBody!,
  ) as { outboxId: string; link: string };
  expect(link).toBe(`https://console.example/#/accept-invite/${token}`);
  const stored = await readRawItem(inviteEmailKey(db.accounts.acmeId, outboxId));
  expect(stored?.text).toContain('{{one-time-link}}');
  expect(JSON.stringify(stored)).not.toContain(token);
});

it('checks the policy itself before asking the pool anything', async () => {
  const token = await invite('weak.choice@acme.example');
  const answer = await accept({ token, password: 'password' });
  expect(answer.statusCode).toBe(400);
  expect(answer.body.error).toMatch(/^A password needs at least 12 characters/);
  expect(cognitoMock.calls()).toHaveLength(0);
});
