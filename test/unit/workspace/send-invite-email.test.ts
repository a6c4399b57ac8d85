// The outbox rule of invite emails, without DynamoDB: an in-memory outbox stands in for storage.
import { sendInviteEmail } from '../../../functions/domain/workspace/invites';
import { Logger } from '../../../functions/log';
import type { InviteOutbox, OutboxRecord } from '../../../functions/store/invite-outbox';

const now = new Date('2026-11-22T12:00:00.000Z');
const log = new Logger();
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

const message = { companyId: 'c1', outboxId: 'o1' };

describe('sendInviteEmail', () => {
  it('sends a pending record and marks it sent', async () => {
    const { outbox, marked } = memoryOutbox(record('pending'));
    expect(await sendInviteEmail(message, now, log, outbox)).toBe('sent');
    expect(marked).toEqual(['o1']);
  });

  it('skips a record already sent, and one that is gone', async () => {
    const sent = memoryOutbox(record('sent'));
    expect(await sendInviteEmail(message, now, log, sent.outbox)).toBe('already-sent');
    expect(sent.marked).toEqual([]);
    expect(await sendInviteEmail(message, now, log, memoryOutbox(undefined).outbox)).toBe('missing');
  });

  it('reports already-sent when another delivery marked it between the read and the mark', async () => {
    const { outbox } = memoryOutbox(record('pending'), false);
    expect(await sendInviteEmail(message, now, log, outbox)).toBe('already-sent');
  });
});
