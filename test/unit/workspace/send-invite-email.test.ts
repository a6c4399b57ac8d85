// The outbox rule of notification emails (invites and the other kinds), without DynamoDB or SES: an
// in-memory outbox and transport stand in.
import { deliverOutboxEmail } from '../../../functions/domain/mail/deliver';
import { inviteEmailContent } from '../../../functions/domain/workspace/invites';
import type { Logger } from '../../../functions/log';
import type { MailMessage, MailTransport } from '../../../functions/store/invite-mail';
import type { InviteFields, InviteOutbox, OutboxRecord } from '../../../functions/store/invite-outbox';

const now = new Date('2026-11-22T12:00:00.000Z');
const invite: InviteFields = {
  name: 'New',
  role: 'member',
  invitedBy: 'ada@acme.example',
  inviteExpiresAt: '2026-11-29T12:00:00.000Z',
};
/** An invite record as inviteUser writes it: its invite fields and what it sends. */
const record = (status: OutboxRecord['status']): OutboxRecord => ({
  outboxId: 'o1',
  companyId: 'c1',
  kind: 'invite',
  to: 'new@acme.example',
  ...invite,
  ...inviteEmailContent(invite),
  status,
  createdAt: now.toISOString(),
});

function memoryOutbox(stored?: OutboxRecord, markWins = true) {
  const marked: string[] = [];
  const outbox: InviteOutbox = {
    read: async () => stored,
    markSent: async (_companyId, outboxId) => {
      marked.push(outboxId);
      return markWins;
    },
  };
  return { outbox, marked };
}

function memoryTransport(fail = false) {
  const sent: MailMessage[] = [];
  const transport: MailTransport = {
    kind: 'ses',
    send: async (message) => {
      if (fail) throw new Error('MessageRejected: Email address is not verified');
      sent.push(message);
    },
  };
  return { transport, sent };
}

/** Every line the use case logs, as JSON text, whatever the logger does with it. */
function recordingLog() {
  const lines: string[] = [];
  const write =
    (level: string) =>
    (message: string, ...rest: unknown[]) =>
      lines.push(
        JSON.stringify({ level, message, rest }, (_k, v: unknown) => (v instanceof Error ? v.message : v)),
      );
  const log = {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: () => log,
  } as unknown as Logger;
  return { log, lines };
}

const message = { companyId: 'c1', outboxId: 'o1' };
const address = /[^\s"]+@[^\s"]+/;

describe('deliverOutboxEmail', () => {
  it('sends a pending record to its invitee through the transport and marks it sent', async () => {
    const { outbox, marked } = memoryOutbox(record('pending'));
    const { transport, sent } = memoryTransport();
    const { log } = recordingLog();
    expect(await deliverOutboxEmail(message, now, log, outbox, transport)).toBe('sent');
    expect(marked).toEqual(['o1']);
    expect(sent).toEqual([
      { id: 'o1', kind: 'invite', to: 'new@acme.example', ...inviteEmailContent(invite) },
    ]);
  });

  it('sends an invite written before the outbox kept subject and text, from its invite fields', async () => {
    const { subject: _subject, text: _text, ...legacy } = record('pending');
    const { outbox } = memoryOutbox(legacy);
    const { transport, sent } = memoryTransport();
    expect(await deliverOutboxEmail(message, now, recordingLog().log, outbox, transport)).toBe('sent');
    expect(sent).toEqual([
      { id: 'o1', kind: 'invite', to: 'new@acme.example', ...inviteEmailContent(invite) },
    ]);
  });

  it('sends another kind with its own subject and text, and logs neither', async () => {
    const reset: OutboxRecord = {
      outboxId: 'o2',
      companyId: 'c1',
      kind: 'password_reset',
      to: 'new@acme.example',
      subject: 'Reset your mailvet password',
      text: 'Your reset code is 873-221-SECRET',
      status: 'pending',
      createdAt: now.toISOString(),
    };
    const { outbox } = memoryOutbox(reset);
    const { transport, sent } = memoryTransport();
    const { log, lines } = recordingLog();
    const msg = { companyId: 'c1', outboxId: 'o2' };
    expect(await deliverOutboxEmail(msg, now, log, outbox, transport)).toBe('sent');
    expect(sent).toEqual([
      { id: 'o2', kind: 'password_reset', to: 'new@acme.example', subject: reset.subject, text: reset.text },
    ]);
    await deliverOutboxEmail(msg, now, log, memoryOutbox(reset).outbox, null);
    expect(lines.join('\n')).toContain('password_reset email sent');
    for (const line of lines) {
      expect(line).not.toContain('873-221-SECRET');
      expect(line).not.toContain('Reset your mailvet password');
      expect(line).not.toMatch(address);
    }
  });

  it('drops a record with nothing to send rather than sending an empty email', async () => {
    const { outbox, marked } = memoryOutbox({
      outboxId: 'o3',
      companyId: 'c1',
      kind: 'safety_net_prevention',
      to: 'new@acme.example',
      status: 'pending',
      createdAt: now.toISOString(),
    });
    const { transport, sent } = memoryTransport();
    expect(await deliverOutboxEmail(message, now, recordingLog().log, outbox, transport)).toBe('missing');
    expect(sent).toEqual([]);
    expect(marked).toEqual([]);
  });

  it('skips a record already sent, and one that is gone, without sending', async () => {
    const { transport, sent } = memoryTransport();
    const { log } = recordingLog();
    const done = memoryOutbox(record('sent'));
    expect(await deliverOutboxEmail(message, now, log, done.outbox, transport)).toBe('already-sent');
    expect(done.marked).toEqual([]);
    expect(await deliverOutboxEmail(message, now, log, memoryOutbox(undefined).outbox, transport)).toBe(
      'missing',
    );
    expect(sent).toEqual([]);
  });

  it('reports already-sent when another delivery marked it between the read and the mark', async () => {
    const { outbox } = memoryOutbox(record('pending'), false);
    const { log } = recordingLog();
    expect(await deliverOutboxEmail(message, now, log, outbox, memoryTransport().transport)).toBe(
      'already-sent',
    );
  });

  it('leaves the record pending when no transport is configured (no inviteFrom)', async () => {
    const { outbox, marked } = memoryOutbox(record('pending'));
    const { log, lines } = recordingLog();
    expect(await deliverOutboxEmail(message, now, log, outbox, null)).toBe('not-configured');
    expect(marked).toEqual([]);
    expect(lines.join('\n')).toContain('stays pending');
  });

  it('leaves the record pending when the transport refuses, so SQS delivers the message again', async () => {
    const { outbox, marked } = memoryOutbox(record('pending'));
    const { log } = recordingLog();
    await expect(
      deliverOutboxEmail(message, now, log, outbox, memoryTransport(true).transport),
    ).rejects.toThrow('MessageRejected');
    expect(marked).toEqual([]);
  });

  it('logs no email address on any path (sent, pending, missing), only the outbox id', async () => {
    const { log, lines } = recordingLog();
    await deliverOutboxEmail(
      message,
      now,
      log,
      memoryOutbox(record('pending')).outbox,
      memoryTransport().transport,
    );
    await deliverOutboxEmail(message, now, log, memoryOutbox(record('pending')).outbox, null);
    await deliverOutboxEmail(message, now, log, memoryOutbox(undefined).outbox, null);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(line).not.toMatch(address);
    expect(lines.join('\n')).toContain('o1');
  });
});

describe('inviteEmailContent', () => {
  it('names the inviter, the role and the end of the invite, in plain text', () => {
    const { subject, text } = inviteEmailContent({ ...invite, role: 'admin' });
    expect(subject).toBe('You are invited to a mailvet workspace');
    expect(text).toContain('Hello New,');
    expect(text).toContain('ada@acme.example invited you to their mailvet workspace as an admin.');
    expect(text).toContain('open until 2026-11-29 12:00:00 UTC');
  });
});
