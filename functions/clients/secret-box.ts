// Sealed secrets: what an item may hold of an OAuth grant or a mailbox password. In AWS each seal draws a
// fresh 256-bit data key, encrypts the text with it (AES-256-GCM) and has KMS encrypt the data key under
// the stack's key with the encryption context {purpose, companyId} (envelope encryption: no 4 KB limit,
// and the only KMS actions are Encrypt and Decrypt). Locally (npm start, tests) the text is encrypted
// with the 32-byte key of SECRETS_LOCAL_KEY_FILE. Either way the purpose and company are bound as
// additional data, so a sealed value opens only for the purpose and company it was sealed for.
import './sdk-notice';
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { settings } from '../settings';
import { traced } from './tracer';

export type SecretPurpose = 'integration-grant' | 'mailbox-credentials';

/**
 * A sealed value that does not open: tampered with, sealed for another purpose or company, or under
 * another key. The message names none of the secret, the sealed text or the key.
 */
export class SecretOpenError extends Error {
  constructor(
    readonly purpose: SecretPurpose,
    readonly reason: 'malformed' | 'rejected' | 'other-key',
  ) {
    super(`A sealed ${purpose} secret could not be opened (${reason})`);
    this.name = 'SecretOpenError';
  }
}

const version = 'v1';
const ivBytes = 12;
const tagBytes = 16;
const keyBytes = 32;

let kmsClient: KMSClient | undefined;
/** The local key by file, read (or created) once per process. */
const localKeys = new Map<string, Buffer>();

function kms(): KMSClient {
  kmsClient ??= traced(new KMSClient({ region: settings().AWS_REGION }));
  return kmsClient;
}

/** Forget the KMS client and the local keys read (resetServiceClients). */
export function resetSecretBox(): void {
  kmsClient?.destroy();
  kmsClient = undefined;
  localKeys.clear();
}

/** What the ciphertext is bound to: the same for the data (as GCM's additional data) and for KMS. */
function contextOf(purpose: SecretPurpose, companyId: string): Record<string, string> {
  return { purpose, companyId };
}

function additionalData(purpose: SecretPurpose, companyId: string): Buffer {
  return Buffer.from(JSON.stringify([version, purpose, companyId]), 'utf8');
}

function encrypt(key: Buffer, plaintext: string, aad: Buffer): { iv: Buffer; data: Buffer } {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: tagBytes });
  cipher.setAAD(aad);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return { iv, data };
}

/** Undefined when the tag does not match (tampered, other key, other context). */
function decrypt(key: Buffer, iv: Buffer, data: Buffer, aad: Buffer): string | undefined {
  if (iv.length !== ivBytes || data.length < tagBytes) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: tagBytes });
    decipher.setAAD(aad);
    decipher.setAuthTag(data.subarray(data.length - tagBytes));
    return Buffer.concat([
      decipher.update(data.subarray(0, data.length - tagBytes)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * The local key: read from `file`, or created there first. Creation is a hard link of a complete,
 * 0600 temporary file, which fails if the file exists: two processes starting together agree on one
 * key (the loser reads the winner's), and nobody ever reads half a key.
 */
export function localKey(file: string): Buffer {
  const known = localKeys.get(file);
  if (known) return known;
  let key: Buffer;
  try {
    key = readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(path.dirname(file), { recursive: true });
    const temporary = `${file}.${randomUUID()}.partial`;
    writeFileSync(temporary, randomBytes(keyBytes), { mode: 0o600 });
    try {
      linkSync(temporary, file);
    } catch (linkError) {
      if ((linkError as NodeJS.ErrnoException).code !== 'EEXIST') throw linkError;
    } finally {
      unlinkSync(temporary);
    }
    key = readFileSync(file);
  }
  if (key.length !== keyBytes)
    throw new Error(`SECRETS_LOCAL_KEY_FILE ${file} holds ${key.length} bytes, not a ${keyBytes}-byte key`);
  localKeys.set(file, key);
  return key;
}

function localKeyFile(): string {
  const file = settings().SECRETS_LOCAL_KEY_FILE;
  if (!file)
    throw new Error('Sealed secrets need SECRETS_KMS_KEY_ID (AWS) or SECRETS_LOCAL_KEY_FILE (local runtime)');
  return file;
}

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');

/** Encrypts; the result is an opaque string safe to store in an item. Bound to (purpose, companyId). */
export async function sealSecret(
  plaintext: string,
  purpose: SecretPurpose,
  companyId: string,
): Promise<string> {
  const aad = additionalData(purpose, companyId);
  const keyId = settings().SECRETS_KMS_KEY_ID;
  if (keyId === undefined) {
    const { iv, data } = encrypt(localKey(localKeyFile()), plaintext, aad);
    return [version, 'local', b64(iv), b64(data)].join('.');
  }
  const dataKey = randomBytes(keyBytes);
  try {
    const { CiphertextBlob } = await kms().send(
      new EncryptCommand({
        KeyId: keyId,
        Plaintext: dataKey,
        EncryptionContext: contextOf(purpose, companyId),
      }),
    );
    if (!CiphertextBlob) throw new Error('KMS Encrypt returned no ciphertext');
    const { iv, data } = encrypt(dataKey, plaintext, aad);
    return [version, 'kms', b64(CiphertextBlob), b64(iv), b64(data)].join('.');
  } finally {
    dataKey.fill(0);
  }
}

const base64url = /^[A-Za-z0-9_-]+$/;

/** Decrypts what sealSecret made for the same purpose and company; throws SecretOpenError otherwise. */
export async function openSecret(sealed: string, purpose: SecretPurpose, companyId: string): Promise<string> {
  const parts = typeof sealed === 'string' ? sealed.split('.') : [];
  if (parts[0] !== version || !parts.slice(2).every((p) => base64url.test(p)))
    throw new SecretOpenError(purpose, 'malformed');
  const aad = additionalData(purpose, companyId);
  const keyId = settings().SECRETS_KMS_KEY_ID;
  const bytes = (i: number) => Buffer.from(parts[i]!, 'base64url');
  if (parts[1] === 'local' && parts.length === 4) {
    if (keyId !== undefined) throw new SecretOpenError(purpose, 'other-key');
    const text = decrypt(localKey(localKeyFile()), bytes(2), bytes(3), aad);
    if (text === undefined) throw new SecretOpenError(purpose, 'rejected');
    return text;
  }
  if (parts[1] === 'kms' && parts.length === 5) {
    if (keyId === undefined) throw new SecretOpenError(purpose, 'other-key');
    let dataKey: Uint8Array | undefined;
    try {
      ({ Plaintext: dataKey } = await kms().send(
        new DecryptCommand({
          KeyId: keyId,
          CiphertextBlob: bytes(2),
          EncryptionContext: contextOf(purpose, companyId),
        }),
      ));
    } catch (error) {
      // KMS refuses a blob of another key or context as InvalidCiphertextException (or
      // IncorrectKeyException); anything else (throttling, access) is not about the sealed value.
      const name = (error as Error).name;
      if (name === 'InvalidCiphertextException' || name === 'IncorrectKeyException')
        throw new SecretOpenError(purpose, 'rejected');
      throw error;
    }
    if (!dataKey || dataKey.length !== keyBytes) throw new SecretOpenError(purpose, 'rejected');
    const key = Buffer.from(dataKey);
    try {
      const text = decrypt(key, bytes(3), bytes(4), aad);
      if (text === undefined) throw new SecretOpenError(purpose, 'rejected');
      return text;
    } finally {
      key.fill(0);
    }
  }
  throw new SecretOpenError(purpose, 'malformed');
}
