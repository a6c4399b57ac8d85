// Forgets the settings and every SDK client, so the next use reads process.env again (the local
// runtime and the command-line tools point a process at other endpoints).
import { resetSettings } from '../settings';
import { resetDynamoDb } from './dynamodb';
import { resetS3 } from './s3';
import { resetSecretBox } from './secret-box';
import { resetSecretClients } from './secrets';
import { resetSes } from './ses';
import { resetSqs } from './sqs';

export function resetServiceClients(): void {
  resetSettings();
  resetDynamoDb();
  resetS3();
  resetSqs();
  resetSes();
  resetSecretClients();
  resetSecretBox();
}
