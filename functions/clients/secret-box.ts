// STAND-IN until the platform engineer's secret box lands on main (same signatures, /work/interfaces.md):
// AES-256-GCM with a local 32-byte key file, the purpose and company as additional data.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type SecretPurpose = 'integration-grant' | 'mailbox-credentials';

class SecretOpenError extends Error {
  constructor() {
    super('Sealed secret could not be opened');
    this.name = 'SecretOpenError';
  }
}

let key: Buffer | undefined;
function localKey(): Buffer {
  if (key) return key;
  const file =
    process.env.SECRETS_LOCAL_KEY_FILE ?? path.join(process.env.DATA_DIR ?? '.mailvet', 'secrets.key');
  try {
    key = readFileSync(file);
  } catch {
    mkdirSync(path.dirname(file), { recursive: true });
    const fresh = randomBytes(32);
    try {
      writeFileSync(file, fresh, { mode: 0o600, flag: 'wx' });
      key = fresh;
    } catch {
      key = readFileSync(file);
    }
  }
  return key;
}

export async function sealSecret(
  plaintext: string,
  purpose: SecretPurpose,
  companyId: string,
): Promise<string> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', localKey(), iv);
  cipher.setAAD(Buffer.from(`${purpose}|${companyId}`));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

export async function openSecret(sealed: string, purpose: SecretPurpose, companyId: string): Promise<string> {
  try {
    const raw = Buffer.from(sealed.replace(/^v1\./, ''), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', localKey(), raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(`${purpose}|${companyId}`));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretOpenError();
  }
}
