// How the command-line tools (keys, invoke, imports) reach the services: a running `npm start`
// (its runtime.json), a deployed stack (TABLE_NAME etc. in the environment), or, failing both, the
// local emulators started just for this command.
import { resetServiceClients } from '../functions/clients/reset';
import { queueUrlEnvNames } from '../functions/wiring';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { runtimeFile, startLocalRuntime, type LocalRuntime } from './runtime';

export interface Connection {
  /** Where the tool is working, for its output. */
  target: string;
  /** Set when this command started the emulators itself. */
  runtime?: LocalRuntime;
  close(): Promise<void>;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** @param options.deployed the deployed table in TABLE_NAME even when a local runtime is running */
export async function connect(options: { deployed?: boolean } = {}): Promise<Connection> {
  const dataDir = path.resolve(process.env.DATA_DIR ?? '.mailvet');
  const file = runtimeFile(dataDir);
  if (!options.deployed && existsSync(file)) {
    const running = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; env: Record<string, string> };
    if (isAlive(running.pid)) {
      Object.assign(process.env, running.env);
      resetServiceClients();
      return { target: `the running local runtime (${dataDir})`, close: async () => undefined };
    }
  }
  if (process.env.TABLE_NAME && !process.env.MAILVET_LOCAL) {
    // A deployed stack: AWS credentials and region from the usual environment. Queue URLs and the
    // bucket are only needed by tools that use them; give placeholders so settings parse.
    for (const name of ['BUCKET_NAME', ...queueUrlEnvNames]) process.env[name] ??= 'unset';
    resetServiceClients();
    return { target: `the deployed table ${process.env.TABLE_NAME}`, close: async () => undefined };
  }
  const runtime = await startLocalRuntime({ port: 0, dataDir, serve: false, env: { LOG_LEVEL: 'warn' } });
  return { target: `the local data in ${dataDir}`, runtime, close: () => runtime.stop() };
}
