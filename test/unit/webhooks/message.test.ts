import sendWebhookEvent from '../../../events/sendWebhook.json';
import { parseWebhookMessage } from '../../../functions/domain/webhooks/message';
import { companyId, jobId, webhookMessage } from './helpers';

describe('parseWebhookMessage', () => {
  it('accepts the message the bulk pipeline enqueues', () => {
    const message = webhookMessage('https://hooks.example.com/x');
    expect(parseWebhookMessage(JSON.stringify(message))).toEqual({ ok: true, message });
  });

  it('drops payload keys outside the fixed five', () => {
    const message = webhookMessage('https://hooks.example.com/x');
    const parsed = parseWebhookMessage(
      JSON.stringify({ ...message, payload: { ...message.payload, secret: 1 } }),
    );
    expect(parsed.ok && Object.keys(parsed.message.payload).sort()).toEqual([
      'event',
      'jobId',
      'statistics',
      'status',
      'totalEmails',
    ]);
  });

  it('rejects a body that is not JSON, naming no job', () => {
    expect(parseWebhookMessage('{nope')).toEqual({
      ok: false,
      error: 'Malformed webhook message: body is not JSON',
    });
  });

  it('names the invalid fields and keeps the job reference when there is one', () => {
    const { webhookId: _dropped, ...rest } = webhookMessage('https://hooks.example.com/x');
    expect(parseWebhookMessage(JSON.stringify({ ...rest, payload: { event: 'other' } }))).toEqual({
      ok: false,
      error: expect.stringMatching(/^Malformed webhook message: invalid .*payload\.event.*webhookId/),
      job: { companyId, jobId },
    });
  });

  it('handles JSON that is not an object', () => {
    expect(parseWebhookMessage('null')).toMatchObject({ ok: false });
    expect(parseWebhookMessage('[1]')).toMatchObject({ ok: false });
  });
});

describe('events/sendWebhook.json', () => {
  it('carries a message the handler accepts', () => {
    expect(sendWebhookEvent.Records.map((r) => parseWebhookMessage(r.body).ok)).toEqual([true]);
  });
});
