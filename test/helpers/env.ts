// Default settings for tests that do not start the local runtime (handler tests mock the SDK).
import '../../functions/clients/sdk-notice';
import os from 'node:os';
import path from 'node:path';
import { queueNames, queueUrlEnvName } from '../../functions/wiring';
const defaults: Record<string, string> = {
  TABLE_NAME: 'mailvet-test',
  BUCKET_NAME: 'mailvet-test-bucket',
  ...Object.fromEntries(
    queueNames.map((name) => [queueUrlEnvName(name), `http://127.0.0.1:1/000000000000/mailvet-${name}`]),
  ),
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  LOG_LEVEL: 'silent',
  AUTH_CACHE_SECONDS: '0',
  USAGE_CACHE_SECONDS: '0',
  // no DNS canary check: on a machine without DNS it would read every domain as dns_unavailable
  DNS_CANARY_DOMAINS: '',
  // Sealed secrets without KMS: one key file for every unit test (created atomically by the first).
  SECRETS_LOCAL_KEY_FILE: path.join(os.tmpdir(), 'mailvet-unit-tests', 'secrets.key'),
};
for (const [name, value] of Object.entries(defaults))
  if (process.env[name] === undefined) process.env[name] = value;
