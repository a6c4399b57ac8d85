// Settings of the sealed secrets (functions/clients/secret-box.ts): the KMS key in AWS, the local key
// file on the local runtime and in tests.
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
};
