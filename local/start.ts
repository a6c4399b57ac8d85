// `npm start`: the whole service on this machine, no AWS account needed.
import path from 'node:path';
import { demoKeys } from '../functions/domain/accounts/demo-accounts';
import { checkResolver } from '../functions/domain/validation/dns-health';
import { settings } from '../functions/settings';
import { PortInUseError } from './ports';
import { startLocalRuntime } from './runtime';

/** S3_PORT when set (strict); otherwise the runtime prefers the port DATA_DIR used last, then PORT + 1. */
function s3PortSetting(): number | undefined {
  const raw = process.env.S3_PORT;
  if (raw === undefined || raw === '') return undefined;
  const s3Port = Number(raw);
  if (!Number.isInteger(s3Port) || s3Port < 0 || s3Port > 65535)
    throw new Error(`S3_PORT must be a port number, got ${raw}`);
  return s3Port;
}

async function main(): Promise<void> {
  const started = Date.now();
  const port = Number(process.env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, got ${process.env.PORT}`);
  const dataDir = path.resolve(process.env.DATA_DIR ?? '.mailvet');
  const s3Port = s3PortSetting();
  let stopRuntime = async () => undefined as void;
  const runtime = await startLocalRuntime({
    port,
    dataDir,
    host: process.env.HOST ?? '127.0.0.1',
    ...(s3Port === undefined ? {} : { s3Port }),
    ...(port > 0 && port < 65535 ? { s3PortPreferred: port + 1 } : {}),
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
  const lines = [
    `mailvet local runtime ready in ${seconds} s`,
    `  API:       ${runtime.baseUrl.replace('127.0.0.1', 'localhost')}`,
    `  console:   ${runtime.baseUrl.replace('127.0.0.1', 'localhost')}/ (sign in with a demo key)`,
    `  reference: ${runtime.baseUrl.replace('127.0.0.1', 'localhost')}/docs`,
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
    `  try:       curl -s -H 'x-api-key: ${demoKeys.admin}' ${runtime.baseUrl.replace('127.0.0.1', 'localhost')}/v1/users`,
    '  Ctrl-C stops everything.',
  ];
  process.stdout.write(lines.join('\n') + '\n');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping the local runtime...\n`);
    await runtime.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  if (error instanceof PortInUseError) process.stderr.write(`mailvet: ${error.message}\n`);
  else
    process.stderr.write(
      `mailvet: could not start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  process.exit(1);
});
