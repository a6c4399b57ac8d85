// The sales platforms' OAuth client credentials from one JSON secret (PLATFORM_CREDENTIALS_SECRET): read
// once per process with the SOCKS pool, each credential applied to settings() (never to process.env),
// empty placeholders left out, and every refusal naming the reference and key but never a value.
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { readSecretText, resetSecretClients } from '../../../functions/clients/secrets';
import {
  loadSecretSettings,
  platformCredentialSettings,
  resetSecretSettings,
} from '../../../functions/middlewares/secret-settings';
import { platformCredentialNames, resetSettings, settings } from '../../../functions/settings';

const reference =
  'secretsmanager:arn:aws:secretsmanager:us-east-1:111122223333:secret:mailvet-data/platform-AbCdEf';
const credentials = {
  OUTREACH_CLIENT_ID: 'outreach-client-id',
  OUTREACH_CLIENT_SECRET: 'outreach-secret-Zq9',
  SALESLOFT_CLIENT_ID: 'salesloft-client-id',
  SALESLOFT_CLIENT_SECRET: 'salesloft-secret-Xk4',
};

afterEach(() => {
  delete process.env.PLATFORM_CREDENTIALS_SECRET;
  delete process.env.SMTP_SOCKS_PROXY_SECRET;
  resetSecretSettings();
  resetSettings();
});

describe('platformCredentialSettings', () => {
  it('takes the four credentials', () => {
    expect(platformCredentialSettings(JSON.stringify(credentials), reference)).toEqual(credentials);
    expect(Object.keys(credentials).sort()).toEqual([...platformCredentialNames].sort());
  });

  it("leaves out the stack's empty placeholders, so a platform not set up stays unconfigured", () => {
    const placeholder = Object.fromEntries(platformCredentialNames.map((name) => [name, '']));
    expect(platformCredentialSettings(JSON.stringify(placeholder), reference)).toEqual({});
    expect(
      platformCredentialSettings(JSON.stringify({ ...placeholder, OUTREACH_CLIENT_ID: ' id ' }), reference),
    ).toEqual({ OUTREACH_CLIENT_ID: 'id' });
  });

  it.each([
    ['text that is not JSON', '{"OUTREACH_CLIENT_SECRET": outreach-secret-Zq9', /is not JSON/],
    ['an array', '["outreach-secret-Zq9"]', /is not a JSON object/],
    ['an unknown key', '{"OUTREACH_SECRET": "outreach-secret-Zq9"}', /has the key OUTREACH_SECRET/],
    [
      'a value that is not text',
      '{"OUTREACH_CLIENT_SECRET": {"v": "outreach-secret-Zq9"}}',
      /is not a string/,
    ],
  ])('refuses %s, naming the reference and never the value', (_label, text, rule) => {
    let message = '';
    try {
      platformCredentialSettings(text, reference);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(rule);
    expect(message).toContain(reference);
    expect(message).not.toContain('Zq9');
  });
});

describe('loadSecretSettings with PLATFORM_CREDENTIALS_SECRET', () => {
  it('reads the secret once and applies the credentials, never to process.env', async () => {
    process.env.PLATFORM_CREDENTIALS_SECRET = reference;
    resetSettings();
    const read = jest.fn(async () => JSON.stringify(credentials));
    const apply = jest.fn();
    await loadSecretSettings(read, apply);
    await loadSecretSettings(read, apply);
    expect(read).toHaveBeenCalledTimes(1);
    expect(read).toHaveBeenCalledWith(reference);
    expect(apply).toHaveBeenCalledTimes(1);
    expect(apply).toHaveBeenCalledWith(credentials);
    expect(process.env.OUTREACH_CLIENT_SECRET).toBeUndefined();
  });

  it('reads the SOCKS pool and the credentials together when both are set', async () => {
    process.env.PLATFORM_CREDENTIALS_SECRET = reference;
    process.env.SMTP_SOCKS_PROXY_SECRET = 'ssm:/mailvet/socks';
    resetSettings();
    const read = jest.fn(async (ref: string) =>
      ref === reference ? JSON.stringify(credentials) : 'socks5://u:p@10.0.0.1:1080\n',
    );
    await loadSecretSettings(read);
    expect(read.mock.calls.map(([ref]) => ref).sort()).toEqual(['ssm:/mailvet/socks', reference].sort());
    // through the real applySecretSettings: settings() has the pool (the credentials' keys are declared
    // by the Safety Net settings, functions/settings/safety-net.ts)
    expect(settings().SMTP_SOCKS_PROXY).toBe('socks5://u:p@10.0.0.1:1080');
  });

  it('fails the invocation on a malformed secret without quoting it, and reads again next time', async () => {
    process.env.PLATFORM_CREDENTIALS_SECRET = reference;
    resetSettings();
    const read = jest
      .fn()
      .mockResolvedValueOnce('{"OUTREACH_CLIENT_SECRET": outreach-secret-Zq9')
      .mockResolvedValue(JSON.stringify(credentials));
    const apply = jest.fn();
    const error = await loadSecretSettings(read, apply).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/is not JSON/);
    expect(`${error?.message} ${error?.stack}`).not.toContain('Zq9');
    expect(apply).not.toHaveBeenCalled();
    await loadSecretSettings(read, apply);
    expect(apply).toHaveBeenCalledWith(credentials);
  });

  it('refuses a reference that names no store, naming the setting', () => {
    process.env.PLATFORM_CREDENTIALS_SECRET = 'mailvet/platform';
    resetSettings();
    expect(() => settings()).toThrow(/PLATFORM_CREDENTIALS_SECRET/);
  });

  it('reads the JSON from Secrets Manager by ARN', async () => {
    const secrets = mockClient(SecretsManagerClient);
    try {
      secrets.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify(credentials) });
      expect(JSON.parse(await readSecretText(reference))).toEqual(credentials);
      expect(secrets.commandCalls(GetSecretValueCommand)[0]!.args[0].input).toEqual({
        SecretId: reference.slice('secretsmanager:'.length),
      });
    } finally {
      secrets.restore();
      resetSecretClients();
    }
  });
});
