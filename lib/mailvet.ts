// Builds mailvet's two stacks into an app; bin/app.ts and the CDK tests both call it, so the tests check
// what deploys.
//
// Two stacks, as STYLE.md suggests: StatefulStack (table, buckets, queues) can be kept while ApiStack
// (functions, API) is torn down and redeployed freely. References only run from ApiStack to
// StatefulStack, through named exports; the one place that would reverse them, the S3 upload
// notification, is added from ApiStack on the imported bucket (see api-stack.ts). One stack would have
// avoided that workaround, but then every deploy of a handler would also update the stack that owns the
// data.
import { Annotations, RemovalPolicy, type App, type Environment } from 'aws-cdk-lib';
import type { AlarmOptions } from './alarms';
import { ApiStack, type UsageDefaults } from './api-stack';
import type { InviteOptions } from './invites';
import type { ProbingOptions } from './probing';
import { StatefulStack } from './stateful-stack';

/**
 * Feature flags the stacks need; pass them as the App's context (bin/app.ts and the tests both do).
 * serverAccessLogsUseBucketPolicy: the access-log bucket admits S3's log delivery with a bucket policy
 * instead of the LogDeliveryWrite ACL, which ACL-less (BucketOwnerEnforced) buckets cannot carry.
 */
export const featureFlags: Record<string, unknown> = {
  '@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy': true,
};

export interface MailvetOptions {
  /** Stack name prefix: `<prefix>-data` and `<prefix>-api`; queues are named `<prefix>-data-<queue>`. */
  prefix?: string;
  env?: Environment;
  removalPolicy?: RemovalPolicy;
  /** Subscribed to the alarm topic (context `alarmEmail`). */
  alarmEmail?: string;
  /** Browser origins allowed to call the API (context `apiCorsOrigins`, comma-separated); none by default. */
  apiCorsOrigins?: string[];
  /** Plan defaults for the functions (contexts `defaultMonthlyQuota`, `defaultCredits`). */
  usageDefaults?: UsageDefaults;
  /** Mailbox probing (contexts `smtpProbe`, `smtpHeloName`, `smtpMailFrom`, `smtpSocksSecret`). */
  probing?: ProbingOptions;
  /** Invite emails through SES (contexts `inviteFrom`, `inviteIdentity`); unset: invites stay pending. */
  invites?: InviteOptions;
  /** Reserved concurrency per API function (context `apiReservedConcurrency`); 0: none. */
  apiReservedConcurrency?: number;
  /** Alarm thresholds (context `apiLatencyP99Ms`). */
  alarms?: AlarmOptions;
  /**
   * The web console's origin, `https://<distribution domain>` (context `consoleOrigin`, the ConsoleUrl
   * output of a first deploy): the data bucket's CORS rule admits it and `apiCorsOrigins`. Unset: any
   * CloudFront origin, with a synth warning.
   */
  consoleOrigin?: string;
}

/** The bucket's CORS origin while the console's own is not known yet: where every distribution lives. */
export const anyCloudFrontOrigin = 'https://*.cloudfront.net';

/** A browser origin as CORS compares it: scheme and host (and port), nothing else. */
export function contextOrigin(name: string, value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const text = String(value).trim();
  if (!/^https:\/\/[a-z0-9.-]+(:\d+)?$/i.test(text))
    throw new Error(`${name} must be an origin like https://d111111abcdef8.cloudfront.net, not ${text}`);
  return text.toLowerCase();
}

/**
 * A context value as a whole number >= 0; unset: undefined. Anything else stops the synth with the
 * context's name, rather than deploying functions that fail at their first settings() call.
 */
export function contextCount(name: string, value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const number = typeof value === 'number' ? value : Number(String(value).trim());
  if (!Number.isSafeInteger(number) || number < 0)
    throw new Error(`${name} must be a whole number >= 0, not ${String(value)}`);
  return number;
}

/** A context value as true or false (`-c smtpProbe=true` arrives as a string); unset: false. */
export function contextFlag(name: string, value: unknown): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`${name} must be true or false, not ${String(value)}`);
}

/** A context value as a list: an array as is, a string split on commas; unset: empty. */
export function contextList(value: unknown): string[] {
  if (value === undefined || value === null || value === '') return [];
  const items = Array.isArray(value) ? value.map(String) : String(value).split(',');
  return items.map((item) => item.trim()).filter((item) => item !== '');
}

export interface MailvetStacks {
  stateful: StatefulStack;
  api: ApiStack;
}

export function createMailvet(app: App, options: MailvetOptions = {}): MailvetStacks {
  const prefix = options.prefix ?? 'mailvet';
  const stateful = new StatefulStack(app, `${prefix}-data`, {
    env: options.env,
    description: 'mailvet stateful resources: table, bucket, queues',
    removalPolicy: options.removalPolicy ?? RemovalPolicy.RETAIN,
    alarmEmail: options.alarmEmail,
    corsAllowedOrigins: [options.consoleOrigin ?? anyCloudFrontOrigin, ...(options.apiCorsOrigins ?? [])],
  });
  if (!options.consoleOrigin)
    Annotations.of(stateful).addWarningV2(
      'mailvet:consoleOrigin',
      `The data bucket's CORS rule admits any CloudFront origin (${anyCloudFrontOrigin}): deploy again with ` +
        '-c consoleOrigin=<the ConsoleUrl output> to admit only the console.',
    );
  const api = new ApiStack(app, `${prefix}-api`, {
    env: options.env,
    description: 'mailvet functions and HTTP API',
    refs: stateful.refs,
    corsOrigins: options.apiCorsOrigins,
    usageDefaults: options.usageDefaults,
    probing: options.probing,
    invites: options.invites,
    apiReservedConcurrency: options.apiReservedConcurrency,
    alarms: options.alarms,
  });
  api.addStackDependency(stateful);
  return { stateful, api };
}
