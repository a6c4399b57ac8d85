// `npm start`: the whole service on this machine, no AWS account needed.
import path from 'node:path';
import { checkResolver } from '../functions/domain/validation/dns-health';
import { settings } from '../functions/settings';
import { portHolder } from './port-holder';
import { PortInUseError, portIsFree } from './ports';
import { killStaleJvm, StaleJvmError } from './stale-jvm';

/** Exit code of a start refused because of a setting (a port taken or not a port). */
const settingExitCode = 2;

class StartSettingError extends Error {}

interface PortNeed {
  port: number;
  role: string;
  /** How to move it, as the user would type it. */
  remedy: string;
}

function portSetting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new StartSettingError(`${name} must be a port number (0-65535), got ${raw}`);
  return port;
}

/**
 * The API on PORT, the local S3 and DynamoDB Local just above it, so runtimes started with different
 * PORTs never share a port. PORT=0 lets the system pick every one of them not set on its own.
 */
function ports(): { api: number; s3?: number; dynamoDb?: number; cognito?: number; needs: PortNeed[] } {
  const api = portSetting('PORT', 3000);
  if (api > 65532) throw new StartSettingError(`PORT must leave room for three ports above it, got ${api}`);
  const s3 = portSetting('S3_PORT', api === 0 ? 0 : api + 1);
  const dynamoDb = portSetting('DYNAMODB_PORT', api === 0 ? 0 : api + 2);
  const cognito = portSetting('COGNITO_PORT', api === 0 ? 0 : api + 3);
  const another = api + 1000 <= 65533 ? api + 1000 : 4000;
  const needs: PortNeed[] = [
    { port: api, role: 'the API', remedy: `start on another port: PORT=${another} npm start` },
    {
      port: s3,
      role: `the local S3${process.env.S3_PORT ? ', S3_PORT' : ', PORT + 1'}`,
      remedy: `move it with S3_PORT, or start on another port: PORT=${another} npm start`,
    },
    {
      port: dynamoDb,
      role: `DynamoDB Local${process.env.DYNAMODB_PORT ? ', DYNAMODB_PORT' : ', PORT + 2'}`,
      remedy: `move it with DYNAMODB_PORT, or start on another port: PORT=${another} npm start`,
    },
    {
      port: cognito,
      role: `the Cognito emulator${process.env.COGNITO_PORT ? ', COGNITO_PORT' : ', PORT + 3'}`,
      remedy: `move it with COGNITO_PORT, or start on another port: PORT=${another} npm start`,
    },
  ].filter((need) => need.port !== 0);
  // 0: any free port (for the local S3, the one this data directory used last, when free).
  return { api, s3: s3 || undefined, dynamoDb: dynamoDb || undefined, cognito: cognito || undefined, needs };
}

/** Fails at once, before DynamoDB Local's JVM starts, when a port the runtime needs is taken. */
async function checkPorts(needs: PortNeed[], host: string): Promise<void> {
  for (const need of needs) {
    const seen = needs.find((other) => other.port === need.port);
    if (seen !== need)
      throw new StartSettingError(`${need.role} and ${seen!.role} are both set to port ${need.port}`);
    // The API may listen on another address (HOST); the emulators are on loopback.
    const free = await portIsFree(need.port, need.role === 'the API' ? host : '127.0.0.1');
    if (!free) {
      const holder = portHolder(need.port);
      throw new StartSettingError(
        `port ${need.port} (${need.role}) is already in use${holder ? ` by ${holder}` : ''}. Stop what holds it, or ${need.remedy}`,
      );
    }
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const host = process.env.HOST ?? '127.0.0.1';
  const { api, s3, dynamoDb, cognito, needs } = ports();
  const dataDir = path.resolve(process.env.DATA_DIR ?? '.mailvet');
  // A runtime killed on this data directory may have left its JVM holding DynamoDB Local's port.
  await killStaleJvm(path.join(dataDir, 'dynamodb', 'jvm.pid'), dynamoDb ? { port: dynamoDb } : {});
  await checkPorts(needs, host);
  // Loaded only now: the runtime pulls in the AWS SDK and every handler, seconds a taken port need not wait.
  const { startLocalRuntime } = await import('./runtime');
  const { demoKeys } = await import('./demo/accounts');
  let stopRuntime = async () => undefined as void;
  const runtime = await startLocalRuntime({
    port: api,
    dataDir,
    host,
    ...(s3 === undefined ? {} : { s3Port: s3 }),
    ...(dynamoDb === undefined ? {} : { dynamoDbPort: dynamoDb }),
    ...(cognito === undefined ? {} : { cognitoPort: cognito }),
    onFatal: (error) => {
      process.stderr.write(`mailvet: ${error.message}\n`);
      void stopRuntime().finally(() => process.exit(1));
    },
  });
  stopRuntime = () => runtime.stop();
  // The runtime has put its settings in process.env; a resolver that fails every name (filtered and
  // captive networks) is said here, not discovered in a results file.
  const dns = await checkResolver(settings());
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const url = runtime.baseUrl.replace('127.0.0.1', 'localhost');
  const lines = [
    `mailvet local runtime ready in ${seconds} s`,
    `  API:       ${url}`,
    `  console:   ${url}/ (sign in with a demo key, or as a demo person: README, "Demo people")`,
    `  reference: ${url}/docs`,
    `  data:      ${dataDir}${runtime.seeded ? ' (new: demo workspace seeded)' : ''}`,
    `  demo keys: ${demoKeys.admin} (Acme, may invite and toggle sequences)`,
    `             ${demoKeys.member} (Acme, no write permissions)`,
    `             ${demoKeys.other} (Globex)`,
    ...(dns.broken
      ? [
          `  DNS:       the resolver answers none of ${dns.canaries.join(', ')}: domains it calls non-existent`,
          '             read as some_risk / dns_unavailable, not block_bounce_risk. Set DNS_SERVERS to a',
          '             resolver that works (DNS_CANARY_DOMAINS names the check, empty turns it off).',
        ]
      : []),
    `  try:       MAILVET_URL=${url} npx mailvet validate-file docs/examples/leads.csv --key ${demoKeys.admin}`,
    `             curl -s -H 'x-api-key: ${demoKeys.admin}' ${url}/v1/users`,
    '  Ctrl-C stops everything.',
  ];
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping the local runtime...\n`);
    await runtime.stop();
    process.exit(0);
  };
  // Before the banner: whoever reads "Ctrl-C stops everything" may send the signal at once, and this
  // process may not run again until it arrives (a busy machine): it must not meet the default action.
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((error: unknown) => {
  // A port taken between the check and the listen (another start racing this one) reads the same.
  if (
    error instanceof StartSettingError ||
    error instanceof PortInUseError ||
    error instanceof StaleJvmError
  ) {
    process.stderr.write(`mailvet: ${error.message}\n`);
    process.exit(settingExitCode);
  }
  process.stderr.write(
    `mailvet: could not start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
