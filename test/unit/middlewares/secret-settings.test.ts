// The SOCKS pool from a secret store: read once per process before the handler, applied to settings()
// and never to process.env; a failed read is tried again on the next invocation.
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { readSecretText, resetSecretClients } from '../../../functions/clients/secrets';
import { handler as probeMailboxes } from '../../../functions/handlers/probe-mailboxes';
import { handler as runValidation } from '../../../functions/handlers/run-validation';
import { handler as validateChunk } from '../../../functions/handlers/validate-chunk';
import { loadSecretSettings, resetSecretSettings } from '../../../functions/middlewares/secret-settings';
import { resetSettings, settings } from '../../../functions/settings';

const secrets = mockClient(SecretsManagerClient);
const ssm = mockClient(SSMClient);
const pool = 'socks5://probe:s3cret@10.0.0.1:1080\nsocks5://probe:s3cret@10.0.0.2:1080\n';

afterEach(() => {
  delete process.env.SMTP_SOCKS_PROXY_SECRET;
  resetSecretSettings();
  resetSettings();
});

describe('loadSecretSettings', () => {
  it('puts the pool into settings() once, never into process.env', async () => {
    process.env.SMTP_SOCKS_PROXY_SECRET = 'secretsmanager:mailvet/socks';
    resetSettings();
    const read = jest.fn(async () => pool);
    await loadSecretSettings(read);
    await loadSecretSettings(read);
    expect(read).toHaveBeenCalledTimes(1);
    expect(read).toHaveBeenCalledWith('secretsmanager:mailvet/socks');
    expect(settings().SMTP_SOCKS_PROXY).toBe(
      'socks5://probe:s3cret@10.0.0.1:1080,socks5://probe:s3cret@10.0.0.2:1080',
    );
    expect(process.env.SMTP_SOCKS_PROXY).toBeUndefined();
  });

  it('reads nothing without SMTP_SOCKS_PROXY_SECRET', async () => {
    const read = jest.fn(async () => pool);
    await loadSecretSettings(read);
    expect(read).not.toHaveBeenCalled();
    expect(settings().SMTP_SOCKS_PROXY).toBeUndefined();
  });

  it('fails the invocation when the read fails, and reads again on the next one', async () => {
    process.env.SMTP_SOCKS_PROXY_SECRET = 'ssm:/mailvet/socks';
    resetSettings();
    const read = jest.fn().mockRejectedValueOnce(new Error('AccessDeniedException')).mockResolvedValue(pool);
    await expect(loadSecretSettings(read)).rejects.toThrow('AccessDeniedException');
    await loadSecretSettings(read);
    expect(read).toHaveBeenCalledTimes(2);
    expect(settings().SMTP_SOCKS_PROXY).toContain('10.0.0.2');
  });

  it('refuses a reference that names no store, naming the setting', () => {
    process.env.SMTP_SOCKS_PROXY_SECRET = 'mailvet/socks';
    resetSettings();
    expect(() => settings()).toThrow(/SMTP_SOCKS_PROXY_SECRET/);
  });
});

describe('readSecretText', () => {
  afterEach(() => {
    secrets.reset();
    ssm.reset();
    resetSecretClients();
  });

  it('reads a Secrets Manager SecretString by name or ARN', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: 'mailvet/socks' }).resolves({ SecretString: pool });
    expect(await readSecretText('secretsmanager:mailvet/socks')).toBe(pool);
  });

  it('reads an SSM SecureString decrypted', async () => {
    ssm.on(GetParameterCommand).resolves({ Parameter: { Value: pool } });
    expect(await readSecretText('ssm:/mailvet/socks')).toBe(pool);
    expect(ssm.commandCalls(GetParameterCommand)[0]!.args[0].input).toEqual({
      Name: '/mailvet/socks',
      WithDecryption: true,
    });
  });

  it('refuses an empty secret, naming the reference and not the value', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: ' ' });
    await expect(readSecretText('secretsmanager:mailvet/socks')).rejects.toThrow(
      'secretsmanager:mailvet/socks holds no text',
    );
  });
});

describe('the probing queue consumers', () => {
  afterEach(() => {
    secrets.reset();
    resetSecretClients();
  });

  it.each([
    ['validateChunk', validateChunk],
    ['runValidation', runValidation],
    ['probeMailboxes', probeMailboxes],
  ])('%s reads the SOCKS pool before its handler runs', async (name, handler) => {
    process.env.SMTP_SOCKS_PROXY_SECRET = `secretsmanager:mailvet/${name}`;
    resetSecretSettings();
    secrets.on(GetSecretValueCommand).resolves({ SecretString: pool });
    const context = { functionName: name, getRemainingTimeInMillis: () => 60_000 };
    expect(await handler({ Records: [] }, context as never)).toEqual({ batchItemFailures: [] });
    expect(secrets.commandCalls(GetSecretValueCommand).map((c) => c.args[0].input.SecretId)).toEqual([
      `mailvet/${name}`,
    ]);
    expect(settings().SMTP_SOCKS_PROXY).toContain('10.0.0.1:1080');
  });
});
