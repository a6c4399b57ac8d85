// The items of connected mailboxes beyond the workspace's (design in docs/mailboxes.md): each mailbox's
// sealed IMAP and SMTP credentials, and the placement tests it sent. Keys: the mailboxes block of ../keys.ts.
import { map, number, string } from 'dynamodb-toolbox';
import { storedEntity, type ItemOf } from './declare';
import { connectionStatuses } from './workspace';

export const serverSecurities = ['tls', 'starttls'] as const;
const placements = ['pending', 'inbox', 'spam', 'missing'] as const;

/** Where one protocol's server is and who logs in; never the password (that is in `sealed`). */
const server = map({
  host: string(),
  port: number(),
  security: string().enum(...serverSecurities),
  username: string(),
});

/** CMBXCRED#<mailboxId>, gsi2 PLACEMENTNET: one mailbox of the placement network. */
export const mailboxCredentialsEntity = storedEntity('mailboxCredentials', {
  gsi2pk: string(),
  gsi2sk: string(),
  type: string().const('mailboxCredentials'),
  companyId: string(),
  mailboxId: string(),
  email: string(),
  domain: string(),
  /** A copy of the mailbox's status: only `connected` mailboxes receive tests. */
  connectionStatus: string().enum(...connectionStatuses),
  connectedAt: string(),
  imap: server,
  smtp: server,
  /** The two passwords as one sealed secret (purpose mailbox-credentials, bound to the company). */
  sealed: string(),
});

/** PLACETEST#<senderId>#<day>#<tag>, gsi1 PLACEINBOX#<recipientId>#<day>: one test message. */
export const placementTestEntity = storedEntity('placementTest', {
  gsi1pk: string(),
  gsi1sk: string(),
  type: string().const('placementTest'),
  tag: string(),
  day: string(),
  senderCompanyId: string(),
  senderId: string(),
  recipientCompanyId: string(),
  recipientId: string(),
  messageId: string(),
  sentAt: string(),
  placement: string().enum(...placements),
  checkedAt: string().optional(),
  ttl: number(),
});

export type MailboxCredentialsItem = ItemOf<typeof mailboxCredentialsEntity>;
export type PlacementTestItem = ItemOf<typeof placementTestEntity>;
export type Placement = (typeof placements)[number];
export type ServerSecurity = (typeof serverSecurities)[number];
