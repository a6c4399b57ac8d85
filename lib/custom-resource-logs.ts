// CDK's own deploy-time functions (the bucket-notification handler, the console's bucket deployment)
// would log to groups Lambda creates on first use, which never expire. Each gets a group of its own with
// the stack's retention instead.
import { CfnResource, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/** The singleton construct id CDK gives the S3 bucket-notification handler in a stack. */
const notificationsHandlerId = 'BucketNotificationsHandler050a0587b7544547bf325f094a3db834';

/** A log group for a deploy-time function: retained a month by default, deleted with the stack. */
export function customResourceLogGroup(
  scope: Construct,
  id: string,
  retention = logs.RetentionDays.ONE_MONTH,
): logs.LogGroup {
  return new logs.LogGroup(scope, id, { retention, removalPolicy: RemovalPolicy.DESTROY });
}

/**
 * Points the stack's bucket-notification handler (an inline function CDK builds without a logging
 * option) at its own log group. Call after the notifications are added; a stack without any is left as is.
 */
export function giveNotificationsHandlerLogs(stack: Stack, retention?: logs.RetentionDays): void {
  const handler = stack.node.tryFindChild(notificationsHandlerId);
  const resource = handler?.node.tryFindChild('Resource');
  if (!(resource instanceof CfnResource)) return;
  const group = customResourceLogGroup(stack, 'BucketNotificationsHandlerLogs', retention);
  resource.addPropertyOverride('LoggingConfig', { LogGroup: group.logGroupName });
}
