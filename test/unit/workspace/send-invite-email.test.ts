// The outbox rule of invite emails, without DynamoDB or SES: an in-memory outbox and transport stand in.
import { inviteEmailContent, sendInviteEmail } from '../../../functions/domain/workspace/invites';
import type { Logger } from '../../../functions/log';
import type { MailMessage, MailTransport } from '../../../functions/store/invite-mail';
import type { InviteOutbox, OutboxRecord } from '../../../functions/store/invite-outbox';

const now = new Date('2026-11-22T12:00:00.000Z');
const record = (status: OutboxRecord['status']): OutboxRecord => ({
  outboxId: 'o1',
  companyId: 'c1',
  to: 'new@acme.example',
  name: 'New',
  role: 'member',
  invitedBy: 'ada@acme.example',
  inviteExpiresAt: '2026-11-29T12:00:00.000Z',
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

describe('sendInviteEmail', () => {
  it('sends a pending record to its invitee through the transport and marks it sent', async () => {
    const { outbox, marked } = memoryOutbox(record('pending'));
    const { transport, sent } = memoryTransport();
    const { log } = recordingLog();
    expect(await sendInviteEmail(message, now, log, outbox, transport)).toBe('sent');
    expect(marked).toEqual(['o1']);
    expect(sent).toEqual([{ id: 'o1', to: 'new@acme.example', ...inviteEmailContent(record('pending')) }]);
  });

  it('skips a record already sent, and one that is gone, without sending', async () => {
    const { transport, sent } = memoryTransport();
    const { log } = recordingLog();
    const done = memoryOutbox(record('sent'));
    expect(await sendInviteEmail(message, now, log, done.outbox, transport)).toBe('already-sent');
    expect(done.marked).toEqual([]);
    expect(await sendInviteEmail(message, now, log, memoryOutbox(undefined).outbox, transport)).toBe(
      'missing',
    );
    expect(sent).toEqual([]);
  });

  it('reports already-sent when another delivery marked it between the read and the mark', async () => {
    const { outbox } = memoryOutbox(record('pending'), false);
    const { log } = recordingLog();
    expect(await sendInviteEmail(message, now, log, outbox, memoryTransport().transport)).toBe(
      'already-sent',
    );
  });

  it('leaves the record pending when no transport is configured (no inviteFrom)', async () => {
    const { outbox, marked } = memoryOutbox(record('pending'));
    const { log, lines } = recordingLog();
    expect(await sendInviteEmail(message, now, log, outbox, null)).toBe('not-configured');
    expect(marked).toEqual([]);
    expect(lines.join('\n')).toContain('stays pending');
  });

  it('leaves the record pending when the transport refuses, so SQS delivers the message again', async () => {
    const { outbox, marked } = memoryOutbox(record('pending'));
    const { log } = recordingLog();
    await expect(sendInviteEmail(message, now, log, outbox, memoryTransport(true).transport)).rejects.toThrow(
      'MessageRejected',
    );
    expect(marked).toEqual([]);
  });

  it('logs no email address on any path (sent, pending, missing), only the outbox id', async () => {
    const { log, lines } = recordingLog();
    await sendInviteEmail(
      message,
      now,
      log,
      memoryOutbox(record('pending')).outbox,
      memoryTransport().transport,
    );
    await sendInviteEmail(message, now, log, memoryOutbox(record('pending')).outbox, null);
    await sendInviteEmail(message, now, log, memoryOutbox(undefined).outbox, null);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(line).not.toMatch(address);
    expect(lines.join('\n')).toContain('o1');
  });
});

describe('inviteEmailContent', () => {
  it('names the inviter, the role and the end of the invite, in plain text', () => {
    const { subject, text } = inviteEmailContent({ ...record('pending'), role: 'admin' });
    expect(subject).toBe('You are invited to a mailvet workspace');
    expect(text).toContain('Hello New,');
    expect(text).toContain('ada@acme.example invited you to their mailvet workspace as an admin.');
    expect(text).toContain('open until 2026-11-29 12:00:00 UTC');
  });
});
