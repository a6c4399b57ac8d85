// The invite mail transports: SES gets one SendEmail from the configured address; the local runtime's
// outbox gets one .eml file per email; the settings pick between them.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { resetSes } from '../../../functions/clients/ses';
import { resetSettings, settings } from '../../../functions/settings';
import {
  configuredTransport,
  emlOf,
  fileTransport,
  sesTransport,
  type MailMessage,
} from '../../../functions/store/invite-mail';

const message: MailMessage = {
  id: 'o-1',
  kind: 'invite',
  to: 'new@acme.example',
  subject: 'You are invited to a mailvet workspace',
  text: 'Hello,\nline two',
};

describe('sesTransport', () => {
  const sesMock = mockClient(SESv2Client);
  afterEach(() => {
    sesMock.reset();
    resetSes();
  });

  it('sends one plain-text email from the configured address to the invitee', async () => {
    sesMock.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
    await sesTransport('invites@mail.acme.io').send(message);
    const calls = sesMock.commandCalls(SendEmailCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({
      FromEmailAddress: 'invites@mail.acme.io',
      Destination: { ToAddresses: ['new@acme.example'] },
      Content: {
        Simple: {
          Subject: { Data: message.subject, Charset: 'UTF-8' },
          Body: { Text: { Data: message.text, Charset: 'UTF-8' } },
        },
      },
    });
  });

  it('lets a refusal through, so the queue delivers the invite again, with the addresses taken out', async () => {
    const refusal = new Error(
      'Email address is not verified. The following identities failed the check in region US-EAST-1: new@acme.example',
    );
    refusal.name = 'MessageRejected';
    sesMock.on(SendEmailCommand).rejects(refusal);
    const error = await sesTransport('invites@mail.acme.io')
      .send(message)
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(error?.name).toBe('MessageRejected');
    expect(error?.message).toBe(
      'Email address is not verified. The following identities failed the check in region US-EAST-1: [email]',
    );
    expect(error?.stack).not.toContain('new@acme.example');
  });
});

describe('fileTransport', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'mailvet-outbox-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one .eml per email, named by its kind and id; a redelivery rewrites the same file', async () => {
    const date = new Date('2026-11-22T12:00:00.000Z');
    const transport = fileTransport(path.join(dir, 'outbox'), 'invites@mailvet.localhost', () => date);
    await transport.send(message);
    await transport.send(message);
    await transport.send({ ...message, kind: 'password_reset', id: 'o-2' });
    expect(readdirSync(path.join(dir, 'outbox')).sort()).toEqual([
      'invite-o-1.eml',
      'password_reset-o-2.eml',
    ]);
    const eml = readFileSync(path.join(dir, 'outbox', 'invite-o-1.eml'), 'utf8');
    expect(eml).toBe(emlOf(message, 'invites@mailvet.localhost', date));
    expect(eml.split('\r\n\r\n')[0]!.split('\r\n')).toEqual([
      'From: invites@mailvet.localhost',
      'To: new@acme.example',
      'Subject: You are invited to a mailvet workspace',
      'Date: Sun, 22 Nov 2026 12:00:00 GMT',
      'Message-ID: <o-1@mailvet.localhost>',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: 8bit',
    ]);
    expect(eml.endsWith('Hello,\r\nline two')).toBe(true);
  });

  it('refuses a header value with a line break (no header injection)', () => {
    expect(() =>
      emlOf({ ...message, to: 'a@b.example\r\nBcc: x@y.example' }, 'f@x.example', new Date()),
    ).toThrow('To header with a line break');
  });
});

describe('configuredTransport', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    resetSettings();
  });
  const withEnv = (env: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(env))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    resetSettings();
    return configuredTransport(settings());
  };

  it('is SES with INVITE_FROM, the outbox with INVITE_OUTBOX_DIR (first), and none without either', () => {
    expect(withEnv({ INVITE_FROM: 'invites@mail.acme.io', INVITE_OUTBOX_DIR: undefined })?.kind).toBe('ses');
    expect(withEnv({ INVITE_FROM: 'invites@mail.acme.io', INVITE_OUTBOX_DIR: '/tmp/x' })?.kind).toBe('file');
    expect(withEnv({ INVITE_FROM: undefined, INVITE_OUTBOX_DIR: '' })).toBeNull();
  });

  it('refuses an INVITE_FROM that is not an address, naming the setting', () => {
    expect(() => withEnv({ INVITE_FROM: 'mailvet', INVITE_OUTBOX_DIR: undefined })).toThrow(/INVITE_FROM/);
  });
});
