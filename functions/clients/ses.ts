// The Amazon SES (v2 API) client: one per process, built on first use. Only sendInvite uses it, and its
// role may send only from the configured identity (context `inviteFrom`).
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { settings } from '../settings';

let client: SESv2Client | undefined;

export function ses(): SESv2Client {
  client ??= new SESv2Client({ region: settings().AWS_REGION });
  return client;
}

export function resetSes(): void {
  client?.destroy();
  client = undefined;
}
