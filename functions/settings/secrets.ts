// Settings of the platform's secrets: the sealed secrets (functions/clients/secret-box.ts: the KMS key in
// AWS, the local key file on the local runtime and in tests) and where the sales platforms' OAuth client
// credentials are kept in AWS (functions/middlewares/secret-settings.ts).
import { z } from 'zod';

export const sealedSecretSettings = {
  /**
   * The KMS key that seals OAuth grants and mailbox passwords (the stack sets its ARN, only on the
   * functions whose wiring declares `access.secrets`). Set: every seal and open goes through KMS.
   */
  SECRETS_KMS_KEY_ID: z.string().min(1).optional(),
  /**
   * Without SECRETS_KMS_KEY_ID: the file holding the 32-byte AES-256-GCM key (created mode 0600 on first
   * use; the local runtime sets DATA_DIR/secrets.key). Neither set: sealing fails, naming both.
   */
  SECRETS_LOCAL_KEY_FILE: z.string().min(1).optional(),
  /**
   * Where the OAuth client ids and secrets of Outreach and Salesloft are kept (the stack sets it, only on
   * the functions whose wiring declares `access.platformCredentials`): `secretsmanager:<secret>` or
   * `ssm:<SecureString parameter>` holding JSON `{"OUTREACH_CLIENT_ID": ..., "OUTREACH_CLIENT_SECRET":
   * ..., "SALESLOFT_CLIENT_ID": ..., "SALESLOFT_CLIENT_SECRET": ...}`. Read once per process before the
   * first invocation; an empty value leaves that setting to the environment. Never logged.
   */
  PLATFORM_CREDENTIALS_SECRET: z
    .string()
    .regex(/^(secretsmanager|ssm):.+/, 'must be secretsmanager:<secret> or ssm:<parameter>')
    .optional(),
};
