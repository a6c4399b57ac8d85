// The Safety Net connections' items (design in docs/safety-net.md): each company's connection to a
// sales-engagement platform (its grant sealed), the OAuth states waiting for their callback, the
// emails stopped, the allowlist and the recipients' remembered verdicts. Keys: ../keys.ts.
import { anyOf, map, nul, number, string } from 'dynamodb-toolbox';
import { storedEntity, type ItemOf } from './declare';

/** The platforms mailvet connects to (the API's enum is this list). */
export const safetyNetPlatforms = ['outreach', 'salesloft'] as const;
export const connectionStatuses = ['connected', 'syncing', 'grant_error'] as const;

/** COMPANY#<c> / SNCONN#<platform>, gsi1 SNCONNS / <companyId>#<platform>. */
export const safetyNetConnectionEntity = storedEntity('safetyNetConnection', {
  gsi1pk: string(),
  gsi1sk: string(),
  type: string().const('safetyNetConnection'),
  companyId: string(),
  platform: string().enum(...safetyNetPlatforms),
  status: string().enum(...connectionStatuses),
  connectedAt: string(),
  lastSyncAt: anyOf(string(), nul()),
  lastSyncError: anyOf(string(), nul()),
  /** The OAuth grant (tokens and expiry) as sealSecret made it: never plain text on the table. */
  grant: string(),
  /** Moves on every stored grant, so a refresh never overwrites a newer one. */
  grantVersion: number(),
  /** A refresh in flight holds this lease (ISO time), so no two refresh one grant at once. */
  refreshingUntil: string().optional(),
  /** After a 429: nothing goes to the platform for this grant before this time (ISO). */
  rateLimitedUntil: string().optional(),
  /** The secret the platform signs webhooks with, sealed like the grant. */
  webhookSecret: string(),
  webhookId: string().optional(),
});

/** SNSTATE#<sha256 of the state> / SNSTATE: an authorize redirect waiting for its callback. */
export const safetyNetStateEntity = storedEntity('safetyNetState', {
  type: string().const('safetyNetState'),
  companyId: string(),
  platform: string().enum(...safetyNetPlatforms),
  redirectUri: string(),
  expiresAt: string(),
  ttl: number(),
});

/** COMPANY#<c> / SNPREV#<platform>#<emailId>: one email stopped (at most once per platform email). */
export const safetyNetPreventionEntity = storedEntity('safetyNetPrevention', {
  gsi1pk: string(),
  gsi1sk: string(),
  type: string().const('safetyNetPrevention'),
  id: string(),
  platform: string().enum(...safetyNetPlatforms),
  emailId: string(),
  createdAt: string(),
  mailbox: string(),
  prospectEmail: string(),
  status: string(),
  reason: string(),
  explanation: string(),
  sequence: anyOf(map({ crmSequenceId: string(), name: string() }), nul()),
  scheduledAt: anyOf(string(), nul()),
});

/** COMPANY#<c> / SNALLOW#<email>: an address the Safety Net never stops. */
export const safetyNetAllowEntity = storedEntity('safetyNetAllow', {
  type: string().const('safetyNetAllow'),
  email: string(),
  addedAt: string(),
});

/** COMPANY#<c> / SNVERDICT#<email>: a recipient's verdict, reused until its ttl. */
export const safetyNetVerdictEntity = storedEntity('safetyNetVerdict', {
  type: string().const('safetyNetVerdict'),
  email: string(),
  status: string(),
  reason: string(),
  validatedAt: string(),
  ttl: number(),
});

export type SafetyNetConnectionItem = ItemOf<typeof safetyNetConnectionEntity>;
export type SafetyNetStateItem = ItemOf<typeof safetyNetStateEntity>;
export type SafetyNetPreventionItem = ItemOf<typeof safetyNetPreventionEntity>;
export type SafetyNetAllowItem = ItemOf<typeof safetyNetAllowEntity>;
export type SafetyNetVerdictItem = ItemOf<typeof safetyNetVerdictEntity>;
