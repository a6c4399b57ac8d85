// Sealed secrets: a round trip for the same purpose and company, a typed refusal otherwise (tamper,
// another purpose, another company, another key), a local key file made once and shared, and the KMS
// path sending the {purpose, companyId} encryption context on both Encrypt and Decrypt.
import { execFile } from 'node:child_process';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  DecryptCommand,
  EncryptCommand,
  KMSClient,
  type DecryptCommandInput,
  type EncryptCommandInput,
} from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import {
  localKey,
  openSecret,
  resetSecretBox,
  sealSecret,
  SecretOpenError,
} from '../../../functions/clients/secret-box';
import { resetSettings } from '../../../functions/settings';

const secret = 'refresh-token-0b3f9c2e-DO-NOT-LEAK';
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-secret-box-'));
  process.env.SECRETS_LOCAL_KEY_FILE = path.join(dir, 'nested', 'secrets.key');
  delete process.env.SECRETS_KMS_KEY_ID;
  resetSettings();
  resetSecretBox();
});
afterEach(() => {
  delete process.env.SECRETS_LOCAL_KEY_FILE;
  delete process.env.SECRETS_KMS_KEY_ID;
  resetSettings();
  resetSecretBox();
  rmSync(dir, { recursive: true, force: true });
});

/** The refusal, checked to name nothing of the secret or of the sealed text. */
async function refusal(opening: Promise<string>, sealed: string): Promise<SecretOpenError> {
  const error = await opening.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SecretOpenError);
  const text = `${(error as Error).message} ${(error as Error).stack ?? ''}`;
  expect(text).not.toContain(secret);
  for (const part of sealed.split('.').filter((p) => p.length > 8)) expect(text).not.toContain(part);
  return error as SecretOpenError;
}

describe('sealed secrets on the local key', () => {
  it('opens what it sealed, for the same purpose and company; the sealed text shows nothing of it', async () => {
    const sealed = await sealSecret(secret, 'integration-grant', 'company-a');
    expect(sealed).toMatch(/^v1\.local\./);
    expect(sealed).not.toContain(secret);
    expect(Buffer.from(sealed, 'latin1').toString()).not.toContain('DO-NOT-LEAK');
    await expect(openSecret(sealed, 'integration-grant', 'company-a')).resolves.toBe(secret);
    // a fresh IV each time: the same text never seals the same way twice
    expect(await sealSecret(secret, 'integration-grant', 'company-a')).not.toBe(sealed);
  });

  it('round-trips empty and non-ASCII text', async () => {
    for (const text of ['', 'pässwörd ✉ 密码', 'x'.repeat(10_000)]) {
      const sealed = await sealSecret(text, 'mailbox-credentials', 'c');
      await expect(openSecret(sealed, 'mailbox-credentials', 'c')).resolves.toBe(text);
    }
  });

  it('refuses a value sealed for another purpose or another company', async () => {
    const sealed = await sealSecret(secret, 'integration-grant', 'company-a');
    expect((await refusal(openSecret(sealed, 'mailbox-credentials', 'company-a'), sealed)).reason).toBe(
      'rejected',
    );
    expect((await refusal(openSecret(sealed, 'integration-grant', 'company-b'), sealed)).reason).toBe(
      'rejected',
    );
  });

  it('refuses a tampered value, byte by byte, and text that is not a sealed value', async () => {
    const sealed = await sealSecret(secret, 'integration-grant', 'company-a');
    const [v, kind, iv, data] = sealed.split('.') as [string, string, string, string];
    const bytes = Buffer.from(data, 'base64url');
    for (const at of [0, Math.floor(bytes.length / 2), bytes.length - 1]) {
      const flipped = Buffer.from(bytes);
      flipped[at]! ^= 0x01;
      const tampered = [v, kind, iv, flipped.toString('base64url')].join('.');
      await refusal(openSecret(tampered, 'integration-grant', 'company-a'), tampered);
    }
    const otherIv = [v, kind, randomBytes(12).toString('base64url'), data].join('.');
    await refusal(openSecret(otherIv, 'integration-grant', 'company-a'), otherIv);
    for (const garbage of [
      '',
      'plain text',
      'v1.local.!!.??',
      'v2.local.AA.AA',
      'v1.local.AA',
      'v1.other.AA.AA',
    ])
      expect((await refusal(openSecret(garbage, 'integration-grant', 'company-a'), garbage)).reason).toBe(
        'malformed',
      );
  });

  it('refuses a value sealed under another local key', async () => {
    const sealed = await sealSecret(secret, 'integration-grant', 'company-a');
    process.env.SECRETS_LOCAL_KEY_FILE = path.join(dir, 'other.key');
    resetSettings();
    await refusal(openSecret(sealed, 'integration-grant', 'company-a'), sealed);
  });

  it('is AES-256-GCM under the key file, with the purpose and company as additional data', async () => {
    const sealed = await sealSecret(secret, 'integration-grant', 'company-a');
    const [, , iv, data] = sealed.split('.') as [string, string, string, string];
    const bytes = Buffer.from(data, 'base64url');
    const key = readFileSync(process.env.SECRETS_LOCAL_KEY_FILE!);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(JSON.stringify(['v1', 'integration-grant', 'company-a'])));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    expect(
      Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString(),
    ).toBe(secret);
  });

  it('creates the key file once, 0600 with 32 bytes, and keeps it across processes', async () => {
    const file = process.env.SECRETS_LOCAL_KEY_FILE!;
    const sealed = await sealSecret(secret, 'integration-grant', 'company-a');
    const stat = statSync(file);
    expect(stat.mode & 0o777).toBe(0o600);
    expect(stat.size).toBe(32);
    const key = readFileSync(file);
    // a new process (no key in memory) reads the same file, and opens what this one sealed
    resetSecretBox();
    expect(localKey(file).equals(key)).toBe(true);
    await expect(openSecret(sealed, 'integration-grant', 'company-a')).resolves.toBe(secret);
    expect(readFileSync(file).equals(key)).toBe(true);
  });

  it('gives processes that start together one key', async () => {
    const file = path.join(dir, 'race', 'secrets.key');
    const script = `process.stdout.write(require(${JSON.stringify(
      path.resolve(__dirname, '../../../functions/clients/secret-box.ts'),
    )}).localKey(${JSON.stringify(file)}).toString('hex'))`;
    const run = promisify(execFile);
    const keys = await Promise.all(
      [1, 2, 3, 4].map(async () => (await run(process.execPath, ['--import', 'tsx', '-e', script])).stdout),
    );
    expect(keys[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(keys).size).toBe(1);
    expect(readFileSync(file).toString('hex')).toBe(keys[0]);
    // no temporary file left behind
    expect(readdirSync(path.dirname(file))).toEqual(['secrets.key']);
  });

  it('refuses to seal with neither a KMS key nor a key file, naming both settings', async () => {
    delete process.env.SECRETS_LOCAL_KEY_FILE;
    resetSettings();
    await expect(sealSecret(secret, 'integration-grant', 'c')).rejects.toThrow(
      /SECRETS_KMS_KEY_ID.*SECRETS_LOCAL_KEY_FILE/,
    );
  });
});

describe('sealed secrets through KMS', () => {
  const keyId = 'arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
  const kms = mockClient(KMSClient);
  /**
   * A stand-in for KMS's symmetric Encrypt/Decrypt: the blob binds the key id and the encryption
   * context (as KMS does), and Decrypt refuses another context with InvalidCiphertextException.
   */
  const master = randomBytes(32);
  const contextText = (c: Record<string, string> | undefined) =>
    JSON.stringify(Object.entries(c ?? {}).sort(([a], [b]) => a.localeCompare(b)));

  beforeEach(() => {
    kms.reset();
    process.env.SECRETS_KMS_KEY_ID = keyId;
    resetSettings();
    kms.on(EncryptCommand).callsFake((input: EncryptCommandInput) => {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', master, iv);
      cipher.setAAD(Buffer.from(`${input.KeyId}|${contextText(input.EncryptionContext)}`));
      const body = Buffer.concat([cipher.update(input.Plaintext!), cipher.final(), cipher.getAuthTag()]);
      return { CiphertextBlob: Buffer.concat([iv, body]), KeyId: input.KeyId };
    });
    kms.on(DecryptCommand).callsFake((input: DecryptCommandInput) => {
      const blob = Buffer.from(input.CiphertextBlob!);
      try {
        const decipher = createDecipheriv('aes-256-gcm', master, blob.subarray(0, 12));
        decipher.setAAD(Buffer.from(`${input.KeyId}|${contextText(input.EncryptionContext)}`));
        decipher.setAuthTag(blob.subarray(blob.length - 16));
        return {
          Plaintext: Buffer.concat([decipher.update(blob.subarray(12, blob.length - 16)), decipher.final()]),
          KeyId: input.KeyId,
        };
      } catch {
        const error = new Error('');
        error.name = 'InvalidCiphertextException';
        throw error;
      }
    });
  });

  it('encrypts a data key under the stack key with the {purpose, companyId} context, and decrypts it with the same', async () => {
    const sealed = await sealSecret(secret, 'mailbox-credentials', 'company-a');
    expect(sealed).toMatch(/^v1\.kms\./);
    expect(sealed).not.toContain(secret);
    const encrypts = kms.commandCalls(EncryptCommand);
    expect(encrypts).toHaveLength(1);
    const encryptInput = encrypts[0]!.args[0].input;
    expect(encryptInput.KeyId).toBe(keyId);
    expect(encryptInput.EncryptionContext).toEqual({
      purpose: 'mailbox-credentials',
      companyId: 'company-a',
    });
    // KMS sees a 32-byte data key, never the secret
    expect(encryptInput.Plaintext).toHaveLength(32);
    expect(Buffer.from(encryptInput.Plaintext!).toString()).not.toContain(secret);

    await expect(openSecret(sealed, 'mailbox-credentials', 'company-a')).resolves.toBe(secret);
    const decryptInput = kms.commandCalls(DecryptCommand)[0]!.args[0].input;
    expect(decryptInput.KeyId).toBe(keyId);
    expect(decryptInput.EncryptionContext).toEqual({
      purpose: 'mailbox-credentials',
      companyId: 'company-a',
    });
    // no local key file is made when KMS seals
    expect(() => statSync(process.env.SECRETS_LOCAL_KEY_FILE!)).toThrow();
  });

  it('turns KMS refusing another company or purpose into SecretOpenError', async () => {
    const sealed = await sealSecret(secret, 'integration-grant', 'company-a');
    expect((await refusal(openSecret(sealed, 'integration-grant', 'company-b'), sealed)).reason).toBe(
      'rejected',
    );
    expect(kms.commandCalls(DecryptCommand)[0]!.args[0].input.EncryptionContext).toEqual({
      purpose: 'integration-grant',
      companyId: 'company-b',
    });
    await refusal(openSecret(sealed, 'mailbox-credentials', 'company-a'), sealed);
  });

  it('refuses a tampered data part even when KMS gives the data key back', async () => {
    const sealed = await sealSecret(secret, 'integration-grant', 'company-a');
    const parts = sealed.split('.');
    const data = Buffer.from(parts[4]!, 'base64url');
    data[0]! ^= 0x80;
    parts[4] = data.toString('base64url');
    const tampered = parts.join('.');
    await refusal(openSecret(tampered, 'integration-grant', 'company-a'), tampered);
  });

  it('passes other KMS failures (throttling, access) on as they are', async () => {
    const sealed = await sealSecret(secret, 'integration-grant', 'company-a');
    const throttled = new Error('Rate exceeded');
    throttled.name = 'ThrottlingException';
    kms.on(DecryptCommand).rejects(throttled);
    await expect(openSecret(sealed, 'integration-grant', 'company-a')).rejects.toThrow('Rate exceeded');
  });

  it('does not open a locally sealed value with KMS configured, or the other way round', async () => {
    const viaKms = await sealSecret(secret, 'integration-grant', 'company-a');
    delete process.env.SECRETS_KMS_KEY_ID;
    resetSettings();
    const local = await sealSecret(secret, 'integration-grant', 'company-a');
    expect((await refusal(openSecret(viaKms, 'integration-grant', 'company-a'), viaKms)).reason).toBe(
      'other-key',
    );
    process.env.SECRETS_KMS_KEY_ID = keyId;
    resetSettings();
    expect((await refusal(openSecret(local, 'integration-grant', 'company-a'), local)).reason).toBe(
      'other-key',
    );
  });
});
