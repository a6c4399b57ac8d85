// The Cognito emulator (`cognito-local`, an npm package: docs/dependencies.md) as a supervised child
// process on 127.0.0.1, and mailvet's user pool and console app client in it, made once per data
// directory with the same password policy the stack gives the real pool.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  CognitoIdentityProviderClient,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  DescribeUserPoolCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { passwordPolicy } from '../functions/domain/people/password-policy';
import { logger } from '../functions/log';
import { freePort, portIsFree } from './ports';

export interface LocalCognito {
  endpoint: string;
  userPoolId: string;
  clientId: string;
  /** The pool's token issuer; its JWKS is at `${issuer}/.well-known/jwks.json`. */
  issuer: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

export interface LocalCognitoOptions {
  /** The emulator's database and the pool's ids live here and survive a restart. */
  dataDir: string;
  /** Without it: the port this data directory used last time if free, else any free one. */
  port?: number;
  /** Restarts allowed after unexpected exits before giving up (default 3). */
  maxRestarts?: number;
}

const host = '127.0.0.1';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

function startScript(): string {
  return path.join(path.dirname(require.resolve('cognito-local/package.json')), 'lib', 'bin', 'start.js');
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => dir !== '' && existsSync(path.join(dir, command)));
}

function spawnEmulator(dataDir: string): ChildProcess {
  // setpriv (util-linux) has the kernel kill the emulator with its parent: a killed runtime leaves none.
  const [command, ...prefix] = onPath('setpriv')
    ? ['setpriv', '--pdeathsig', 'KILL', process.execPath]
    : [process.execPath];
  return spawn(command!, [...prefix, startScript()], {
    cwd: dataDir,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its AWS SDK v2 prints an end-of-support notice at every start.
    env: { ...process.env, AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE: '1', DEBUG: '' },
  });
}

async function waitUntilReady(endpoint: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`cognito-local exited with ${child.signalCode ?? `code ${child.exitCode}`}: ${output}`);
    const ok = await fetch(`${endpoint}/health`)
      .then((response) => response.ok)
      .catch(() => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`cognito-local did not answer within ${timeoutMs} ms: ${output}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function choosePort(dataDir: string, wanted: number | undefined): Promise<number> {
  if (wanted !== undefined) return wanted === 0 ? freePort(host) : wanted;
  const file = path.join(dataDir, 'port');
  const remembered = existsSync(file) ? Number(readFileSync(file, 'utf8')) : NaN;
  // The same port as last time keeps tokens issued before a restart valid (the issuer names it).
  if (Number.isInteger(remembered) && remembered > 0 && (await portIsFree(remembered, host)))
    return remembered;
  return freePort(host);
}

/** The pool and client of this data directory, made on its first start. */
async function ensurePool(
  endpoint: string,
  dataDir: string,
): Promise<{ userPoolId: string; clientId: string }> {
  const file = path.join(dataDir, 'pool.json');
  const client = new CognitoIdentityProviderClient({ region: 'us-east-1', endpoint, credentials });
  try {
    if (existsSync(file)) {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as { userPoolId: string; clientId: string };
      const found = await client
        .send(new DescribeUserPoolCommand({ UserPoolId: saved.userPoolId }))
        .then(() => true)
        .catch(() => false);
      if (found) return saved;
    }
    const { UserPool } = await client.send(
      new CreateUserPoolCommand({
        PoolName: 'mailvet-people',
        UsernameAttributes: ['email'],
        AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
        Policies: {
          PasswordPolicy: {
            MinimumLength: passwordPolicy.minLength,
            RequireLowercase: passwordPolicy.requireLowercase,
            RequireUppercase: passwordPolicy.requireUppercase,
            RequireNumbers: passwordPolicy.requireDigits,
            RequireSymbols: passwordPolicy.requireSymbols,
          },
        },
      }),
    );
    const { UserPoolClient } = await client.send(
      new CreateUserPoolClientCommand({
        UserPoolId: UserPool!.Id!,
        ClientName: 'mailvet-console',
        GenerateSecret: false,
        ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
        AccessTokenValidity: 60,
        IdTokenValidity: 60,
        RefreshTokenValidity: 30,
        TokenValidityUnits: { AccessToken: 'minutes', IdToken: 'minutes', RefreshToken: 'days' },
      }),
    );
    const ids = { userPoolId: UserPool!.Id!, clientId: UserPoolClient!.ClientId! };
    writeFileSync(file, JSON.stringify(ids, null, 2));
    return ids;
  } finally {
    client.destroy();
  }
}

export async function startLocalCognito(options: LocalCognitoOptions): Promise<LocalCognito> {
  const dataDir = path.resolve(options.dataDir);
  mkdirSync(path.join(dataDir, '.cognito'), { recursive: true });
  const port = await choosePort(dataDir, options.port);
  const endpoint = `http://${host}:${port}`;
  writeFileSync(
    path.join(dataDir, '.cognito', 'config.json'),
    JSON.stringify(
      { ServerConfig: { hostname: host, port }, TokenConfig: { IssuerDomain: endpoint } },
      null,
      2,
    ),
  );
  writeFileSync(path.join(dataDir, 'port'), String(port));
  let stopping = false;
  let restarts = 0;
  let child = spawnEmulator(dataDir);
  const supervise = (running: ChildProcess) => {
    running.once('exit', (code, signal) => {
      if (stopping) return;
      if (restarts >= (options.maxRestarts ?? 3)) {
        logger.error('cognito-local kept exiting; signing in as a person fails until a restart', undefined, {
          code,
          signal,
        });
        return;
      }
      restarts++;
      logger.warn('cognito-local exited unexpectedly; starting it again', { code, signal });
      child = spawnEmulator(dataDir);
      supervise(child);
      void waitUntilReady(endpoint, child, 60_000).catch((error: unknown) =>
        logger.error('cognito-local did not come back', error),
      );
    });
  };
  try {
    // As long as DynamoDB Local's JVM may take: a loaded machine (the crash suite's restarts) is slow.
    await waitUntilReady(endpoint, child, 60_000);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  supervise(child);
  let ids: { userPoolId: string; clientId: string };
  try {
    ids = await ensurePool(endpoint, dataDir);
  } catch (error) {
    stopping = true;
    await stopChild(child);
    throw error;
  }
  return {
    endpoint,
    ...ids,
    issuer: `${endpoint}/${ids.userPoolId}`,
    get process() {
      return child;
    },
    stop: async () => {
      stopping = true;
      await stopChild(child);
    },
  };
}
