// Every setting of every function, parsed from process.env with zod on first use and then cached
// (resetSettings() forgets it). A missing or malformed value fails that first use (in a Lambda, its
// first invocation) with the variable's name and the rule it breaks.
import { z } from 'zod';
import { queueUrlEnvNames, type QueueUrlEnvName } from './wiring';
import { peopleSettings } from './settings/people';
import { mailboxSettings } from './settings/mailboxes';
import { sealedSecretSettings } from './settings/secrets';
import { dnsRetrySettings } from './settings/probe-dns';
import { safetyNetSettings } from './settings/safety-net';

const bool = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1');
const int = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);
const optionalUrl = z.url().optional();

/** The plan defaults, also written into every Lambda's environment by the CDK stack. */
export const planSettingDefaults = { DEFAULT_MONTHLY_QUOTA: 1000, DEFAULT_CREDITS: 0 } as const;

// One required URL per queue of the wiring, so Settings has a typed key for each (CHUNKS_QUEUE_URL, ...).
const queueUrlSettings = Object.fromEntries(
  queueUrlEnvNames.map((name) => [name, z.string().min(1)]),
) as Record<QueueUrlEnvName, z.ZodString>;

const schema = z.object({
  TABLE_NAME: z.string().min(1),
  BUCKET_NAME: z.string().min(1),
  ...queueUrlSettings,
  AWS_REGION: z.string().min(1).default('us-east-1'),

  /** Local runtime only: endpoints of the emulators. Unset in AWS. */
  AWS_ENDPOINT_URL_DYNAMODB: optionalUrl,
  AWS_ENDPOINT_URL_S3: optionalUrl,
  AWS_ENDPOINT_URL_SQS: optionalUrl,
  /** Path-style S3 addressing, which the local S3 needs. */
  S3_FORCE_PATH_STYLE: bool,

  /** Requests per second per company over every API route. */
  RATE_LIMIT_PER_SECOND: int(25, 1),
  /**
   * Seconds a process remembers a key's authentication result. A revoked key stops working within this
   * time; 0 reads the key item on every request.
   */
  AUTH_CACHE_SECONDS: int(5, 0),
  /**
   * Seconds a process trusts its read of a company's plan for the sync endpoint's quota check (the
   * write's condition keeps the count exact; a lowered quota applies within this time); 0 reads it each time.
   */
  USAGE_CACHE_SECONDS: int(10, 0),
  /** Calls a minute one client IP may make with a publishable (`mv_pub_`) key. */
  PUBLISHABLE_PER_IP_PER_MINUTE: int(10, 1),
  /** Calls a UTC day one publishable key may make, from all its visitors together. */
  PUBLISHABLE_DAILY_CAP: int(1000, 1),
  /** Validations per calendar month (UTC) of a company that has no quota of its own (`npm run admin`). */
  DEFAULT_MONTHLY_QUOTA: int(planSettingDefaults.DEFAULT_MONTHLY_QUOTA, 0),
  /** Prepaid credits a company created by `npm run admin -- company create` starts with. */
  DEFAULT_CREDITS: int(planSettingDefaults.DEFAULT_CREDITS, 0),
  /** Lifetime of a job's presigned upload URL. */
  UPLOAD_URL_TTL_SECONDS: int(300, 1),
  DOWNLOAD_URL_TTL_SECONDS: int(3600, 1),
  /** Base of the webhook backoff: attempt n waits base * 2^(n-1) seconds, with jitter. */
  WEBHOOK_RETRY_BASE_SECONDS: z.coerce.number().positive().default(60),
  WEBHOOK_TIMEOUT_MS: int(10000, 1),
  /** Allow callbacks to private, loopback and link-local addresses (local runtime, tests). */
  ALLOW_PRIVATE_CALLBACKS: bool,
  /** Count MX hosts on private or loopback addresses as able to receive mail (local runtime, tests). */
  ALLOW_PRIVATE_MX: bool,
  /** Comma-separated host:port DNS servers for the validator's resolver; empty: the system's. */
  DNS_SERVERS: z.string().default(''),
  /** One DNS question's budget (ms), its retries included: docs/settings.md. */
  DNS_TIMEOUT_MS: int(5000, 1),
  ...dnsRetrySettings,
  /**
   * Comma-separated names that certainly receive mail: while none resolves, the resolver is broken and
   * no domain is called non-existent (some_risk / dns_unavailable instead). Empty: the check is off.
   */
  DNS_CANARY_DOMAINS: z.string().default('gmail.com,outlook.com,yahoo.com'),
  /** Time the sync endpoint waits for a verdict before answering 202 with a poll URL. */
  SYNC_BUDGET_MS: int(30000, 0),
  /** SMTP mailbox probing; off by default because most AWS accounts block outbound port 25. */
  SMTP_PROBE: bool,
  SMTP_PORT: int(25, 1),
  SMTP_TIMEOUT_MS: int(10000, 1),
  SMTP_HELO_NAME: z.string().default('mailvet.local'),
  SMTP_MAIL_FROM: z.string().default('probe@mailvet.local'),
  /** socks5://[user:pass@]host:port, or a comma-separated pool used round-robin, to reach port 25. */
  SMTP_SOCKS_PROXY: z.string().optional(),
  /**
   * Where SMTP_SOCKS_PROXY is kept when its URLs carry credentials (the stack sets it):
   * `secretsmanager:<secret name or ARN>` or `ssm:<SecureString parameter name or ARN>`. Read once per
   * process before the first probe (functions/middlewares/secret-settings.ts); never logged.
   */
  SMTP_SOCKS_PROXY_SECRET: z
    .string()
    .regex(/^(secretsmanager|ssm):.+/, 'must be secretsmanager:<secret> or ssm:<parameter>')
    .optional(),
  /** N: SMTP sessions open at once per MX host across every invocation (bulk probe stage). */
  SMTP_MAX_SESSIONS_PER_HOST: int(2, 1),
  /** M: RCPT commands per second per MX host across every invocation (bulk probe stage). */
  SMTP_RCPT_PER_SECOND_PER_HOST: int(20, 1),
  /** RCPT commands in one SMTP session before QUIT and a new session. */
  SMTP_RECIPIENTS_PER_SESSION: int(50, 1),
  /** Addresses per probe batch message (one MX host each). */
  PROBE_BATCH_SIZE: int(100, 1),
  /** Days a mailbox probe verdict is reused (DynamoDB TTL); 0 turns the cache off. */
  PROBE_CACHE_DAYS: z.coerce.number().min(0).default(7),
  /** Greylisted (4xx) addresses are probed again this many times, PROBE_GREYLIST_DELAY_SECONDS apart. */
  PROBE_GREYLIST_RETRIES: int(2, 0),
  /** SQS DelaySeconds of a greylist retry (at most 900, SQS's maximum). */
  PROBE_GREYLIST_DELAY_SECONDS: z.coerce.number().int().min(0).max(900).default(300),
  /**
   * Target size of one bulk chunk in bytes (small values exercise chunk boundaries in tests). The
   * default is S3's smallest multipart part, 5 MiB: every chunk's part is then at least that big, and
   * the assembly has S3 copy each part into the results file instead of reading and sending it.
   */
  CHUNK_SIZE_BYTES: int(5 * 1024 * 1024, 1),
  /** Tests only: the seed of every estimate's sample (unset: each job's id seeds its own). */
  ESTIMATE_SAMPLE_SEED: z.coerce.number().int().min(0).optional(),
  /**
   * The address invite emails are sent from through Amazon SES (a verified identity; the stack sets it
   * from context `inviteFrom`). Unset, and without INVITE_OUTBOX_DIR, invites stay `pending`.
   */
  INVITE_FROM: z.email().optional(),
  /**
   * Local runtime: each invite email is written to this directory as an .eml file instead of being
   * sent (the runtime sets DATA_DIR/outbox). Takes precedence over INVITE_FROM.
   */
  INVITE_OUTBOX_DIR: z.string().optional(),
  /** Write the dashboard's counts as CloudWatch embedded-metric log lines (the stack sets it). */
  EMF_METRICS: bool,
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  ...peopleSettings,
  ...mailboxSettings,
  ...sealedSecretSettings,
  ...safetyNetSettings,
});

export type Settings = z.infer<typeof schema>;

let cached: Settings | undefined;
/** Values read from a secret store at cold start; they win over process.env and never enter it. */
let secretValues: Partial<Record<SecretSettingName, string>> = {};

/** The settings that may come from a secret store instead of the environment. */
export type SecretSettingName = 'SMTP_SOCKS_PROXY' | PlatformCredentialName;

/** The sales platforms' OAuth client credentials (PLATFORM_CREDENTIALS_SECRET holds them in AWS). */
export const platformCredentialNames = [
  'OUTREACH_CLIENT_ID',
  'OUTREACH_CLIENT_SECRET',
  'SALESLOFT_CLIENT_ID',
  'SALESLOFT_CLIENT_SECRET',
] as const;
export type PlatformCredentialName = (typeof platformCredentialNames)[number];

/** The settings, parsed on first use. Throws naming each missing or malformed variable. */
export function settings(): Settings {
  if (!cached) cached = parseSettings({ ...process.env, ...secretValues });
  return cached;
}

function parseSettings(env: NodeJS.ProcessEnv): Settings {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid settings: ${problems}`);
  }
  return parsed.data;
}

/** Values read from a secret store (functions/middlewares/secret-settings.ts); the next settings() sees them. */
export function applySecretSettings(values: Partial<Record<SecretSettingName, string>>): void {
  secretValues = { ...values };
  cached = undefined;
}

/** Tests and the local runtime change process.env; this makes the next settings() read it again. */
export function resetSettings(): void {
  cached = undefined;
}
