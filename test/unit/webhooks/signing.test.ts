import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { generateWebhookSecret } from '../../../functions/domain/accounts/secrets';
import { signWebhook } from '../../../functions/domain/webhooks/signing';
import { secret } from './helpers';

const body =
  '{"event":"bulk_validation.completed","jobId":"j1","statistics":{},"status":"completed","totalEmails":0}';

describe('signWebhook', () => {
  it('produces headers the Standard Webhooks library verifies', () => {
    const headers = signWebhook({ secret, webhookId: 'msg_1', body, at: new Date() });
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('verifies with a freshly generated company secret too', () => {
    const companySecret = generateWebhookSecret();
    const headers = signWebhook({ secret: companySecret, webhookId: 'msg_1', body, at: new Date() });
    expect(() => new Webhook(companySecret).verify(body, { ...headers })).not.toThrow();
  });

  it('sends the id, the timestamp in whole seconds and a v1 base64 signature', () => {
    const at = new Date('2026-03-01T12:00:00.987Z');
    const headers = signWebhook({ secret, webhookId: 'msg_1', body, at });
    expect(headers['content-type']).toBe('application/json');
    expect(headers['webhook-id']).toBe('msg_1');
    expect(headers['webhook-timestamp']).toBe(String(Date.parse('2026-03-01T12:00:00Z') / 1000));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('fails verification when the body was altered', () => {
    const headers = signWebhook({ secret, webhookId: 'msg_1', body, at: new Date() });
    expect(() => new Webhook(secret).verify(body.replace('0}', '1}'), { ...headers })).toThrow(
      WebhookVerificationError,
    );
  });

  it('fails verification with another company secret', () => {
    const headers = signWebhook({ secret, webhookId: 'msg_1', body, at: new Date() });
    expect(() => new Webhook(generateWebhookSecret()).verify(body, { ...headers })).toThrow(
      WebhookVerificationError,
    );
  });

  it('signs a retry differently only through its timestamp, keeping the id', () => {
    const first = signWebhook({ secret, webhookId: 'msg_1', body, at: new Date('2026-03-01T12:00:00Z') });
    const retry = signWebhook({ secret, webhookId: 'msg_1', body, at: new Date('2026-03-01T12:01:00Z') });
    expect(retry['webhook-id']).toBe(first['webhook-id']);
    expect(retry['webhook-signature']).not.toBe(first['webhook-signature']);
  });

  it('throws for a secret that is not base64', () => {
    expect(() =>
      signWebhook({ secret: 'whsec_not base64!', webhookId: 'msg_1', body, at: new Date() }),
    ).toThrow();
  });
});

describe('docs/webhooks.md', () => {
  const docBody =
    '{"event":"bulk_validation.completed","jobId":"7d9f0c2e-1b2a-4c3d-8e4f-5a6b7c8d9e01",' +
    '"statistics":{"block_bounce_risk":3,"dead_email":1,"do_not_mail_abuse":1,"safe":40,"some_risk":5},' +
    '"status":"completed","totalEmails":50}';
  const docHeaders = signWebhook({
    secret,
    webhookId: 'msg_7d9f0c2e1b2a4c3d8e4f5a6b7c8d9e01',
    body: docBody,
    at: new Date(1767225600 * 1000),
  });

  it('shows the signature mailvet really sends for its example', () => {
    expect(readFileSync(path.join(__dirname, '../../../docs/webhooks.md'), 'utf8')).toContain(
      `webhook-signature: ${docHeaders['webhook-signature']}`,
    );
  });

  it('gives a by-hand recipe that computes the same signature', () => {
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    const expected = createHmac('sha256', key)
      .update(`${docHeaders['webhook-id']}.${docHeaders['webhook-timestamp']}.${docBody}`)
      .digest('base64');
    expect(docHeaders['webhook-signature']).toBe(`v1,${expected}`);
  });
});
