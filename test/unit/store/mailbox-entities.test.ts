// The connected mailboxes' own items: credentials (no password attribute, only the sealed one) and
// placement tests, built from their key builders, read back, and refused when malformed.
import { MalformedItemError } from '../../../functions/store/entities/declare';
import { mailboxCredentialsEntity, placementTestEntity } from '../../../functions/store/entities/mailboxes';
import {
  mailboxCredentialsKey,
  placementInboxIndex,
  placementNetworkIndex,
  placementTestKey,
  placementTestPrefix,
} from '../../../functions/store/keys';

const server = { host: 'imap.alpha.test', port: 993, security: 'tls' as const, username: 'ada@alpha.test' };
const credentials = {
  ...mailboxCredentialsKey('c1', 'm1'),
  ...placementNetworkIndex('c1', 'm1'),
  type: 'mailboxCredentials' as const,
  companyId: 'c1',
  mailboxId: 'm1',
  email: 'ada@alpha.test',
  domain: 'alpha.test',
  connectionStatus: 'connected' as const,
  connectedAt: '2026-12-02T06:00:00.000Z',
  imap: server,
  smtp: { ...server, host: 'smtp.alpha.test', port: 587, security: 'starttls' as const },
  sealed: 'v1.opaque',
};

describe('mailbox credentials and placement test items', () => {
  it('keys credentials under the company and in the network index', () => {
    const item = mailboxCredentialsEntity.item(credentials);
    expect(item).toMatchObject({
      pk: 'COMPANY#c1',
      sk: 'CMBXCRED#m1',
      gsi2pk: 'PLACEMENTNET',
      gsi2sk: 'c1#m1',
    });
    expect(mailboxCredentialsEntity.parse(item)).toEqual(item);
  });

  it('has no place for a password in the clear', () => {
    // a password inside a server's settings is not an attribute of the item: it is not stored
    const nested = mailboxCredentialsEntity.item({
      ...credentials,
      imap: { ...server, password: 'x' },
    } as never);
    expect(JSON.stringify(nested)).not.toContain('password');
    expect(() => mailboxCredentialsEntity.item({ ...credentials, password: 'x' } as never)).toThrow(
      MalformedItemError,
    );
  });

  it('keys a test by sender and day, and indexes it by receiver and day', () => {
    const item = placementTestEntity.item({
      ...placementTestKey('c1', 'm1', '2026-12-02', 'K7Q2M9XA4B'),
      ...placementInboxIndex('m2', '2026-12-02', 'K7Q2M9XA4B'),
      type: 'placementTest',
      tag: 'K7Q2M9XA4B',
      day: '2026-12-02',
      senderCompanyId: 'c1',
      senderId: 'm1',
      recipientCompanyId: 'c2',
      recipientId: 'm2',
      messageId: 'mvp.20261202.K7Q2M9XA4B@alpha.test',
      sentAt: '2026-12-02T06:00:00.000Z',
      placement: 'pending',
      ttl: 1,
    });
    expect(item.sk).toBe('PLACETEST#m1#2026-12-02#K7Q2M9XA4B');
    expect(item.sk.startsWith(placementTestPrefix('m1', '2026-12-02'))).toBe(true);
    expect(item.gsi1pk).toBe('PLACEINBOX#m2#2026-12-02');
    expect(() => placementTestEntity.parse({ ...item, placement: 'lost' })).toThrow(MalformedItemError);
  });
});
