// Invite emails through Amazon SES (context `inviteFrom`, optionally `inviteIdentity`): sendInvite
// gets INVITE_FROM and ses:SendEmail on that one identity, from that one address. Without inviteFrom
// nothing is sent and invites stay `pending`; the synth says so.
import { Annotations, Aws } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import type { MailvetFunction } from './mailvet-function';

export interface InviteOptions {
  /** The From address of invite emails (context `inviteFrom`). */
  from?: string;
  /**
   * The verified SES identity that address sends under (context `inviteIdentity`): its domain (the
   * default) or the address itself, whichever was verified.
   */
  identity?: string;
}

/** The function that sends invite emails. */
const inviteSender = 'sendInvite';

const addressPattern = /^[^\s@<>"]+@([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,63}$/i;

/** The address and identity to send from; throws naming the context when either is unusable. */
export function inviteIdentityOf(options: InviteOptions): { from: string; identity: string } {
  const from = options.from ?? '';
  if (!addressPattern.test(from))
    throw new Error(`inviteFrom "${from}" is not an email address (invites@yourdomain.com)`);
  const domain = from.slice(from.lastIndexOf('@') + 1).toLowerCase();
  const identity = (options.identity ?? domain).toLowerCase();
  if (identity !== from.toLowerCase() && identity !== domain && !domain.endsWith(`.${identity}`))
    throw new Error(
      `inviteIdentity "${identity}" is neither inviteFrom's address nor a domain of it (${domain})`,
    );
  return { from, identity };
}

export function grantInviteSending(
  scope: Construct,
  options: InviteOptions | undefined,
  functions: ReadonlyMap<string, MailvetFunction>,
): void {
  const fn = functions.get(inviteSender);
  if (!fn) throw new Error(`No function named ${inviteSender} in functions/wiring.ts`);
  if (!options?.from) {
    Annotations.of(scope).addWarning(
      'inviteFrom is not set: invite emails are not sent and invites stay pending. Set -c inviteFrom=invites@yourdomain.com ' +
        '(an address of an identity verified in SES); see docs/deploy.md, "Invite emails".',
    );
    return;
  }
  const { from, identity } = inviteIdentityOf(options);
  fn.addEnvironment('INVITE_FROM', from);
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['ses:SendEmail'],
      resources: [`arn:${Aws.PARTITION}:ses:${Aws.REGION}:${Aws.ACCOUNT_ID}:identity/${identity}`],
      conditions: { StringEquals: { 'ses:FromAddress': from } },
    }),
  );
}
