// Secrets Manager and SSM Parameter Store: one client each per process, built on first use, for the
// settings that carry credentials (SMTP_SOCKS_PROXY_SECRET). Only ever read, and only at cold start.
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { settings } from '../settings';

let secretsManager: SecretsManagerClient | undefined;
let ssm: SSMClient | undefined;

/**
 * The text of `secretsmanager:<secret name or ARN>` (its SecretString) or `ssm:<parameter name or
 * ARN>` (a SecureString, decrypted). Throws naming the reference, never the value.
 */
export async function readSecretText(reference: string): Promise<string> {
  const separator = reference.indexOf(':');
  const store = reference.slice(0, separator);
  const id = reference.slice(separator + 1);
  const region = settings().AWS_REGION;
  let text: string | undefined;
  if (store === 'secretsmanager') {
    secretsManager ??= new SecretsManagerClient({ region });
    text = (await secretsManager.send(new GetSecretValueCommand({ SecretId: id }))).SecretString;
  } else if (store === 'ssm') {
    ssm ??= new SSMClient({ region });
    text = (await ssm.send(new GetParameterCommand({ Name: id, WithDecryption: true }))).Parameter?.Value;
  } else throw new Error(`${reference}: not secretsmanager:<secret> or ssm:<parameter>`);
  if (text === undefined || text.trim() === '') throw new Error(`${reference} holds no text`);
  return text;
}

export function resetSecretClients(): void {
  secretsManager?.destroy();
  ssm?.destroy();
  secretsManager = undefined;
  ssm = undefined;
}
