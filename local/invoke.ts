// `npm run invoke -- <function> [--event file.json]`: runs one handler once against the local
// services, like `sam local invoke`. The event defaults to events/<function>.json (for a scheduled
// function without one: its ScheduledRun, now; local/invoke-event.ts).
import path from 'node:path';
import { functions, schedules } from '../functions/wiring';
import { connect } from './connect';
import { lambdaContext } from './events';
import { invokeEvent } from './invoke-event';
import { repositoryRoot } from './runtime';

async function main(argv: string[]): Promise<void> {
  const name = argv[0];
  const spec = functions.find((f) => f.name === name);
  if (!name || !spec) {
    throw new Error(
      `usage: npm run invoke -- <function> [--event file.json]\nfunctions: ${functions.map((f) => f.name).join(', ')}`,
    );
  }
  const event = invokeEvent(name, argv, {
    eventsDir: path.join(repositoryRoot, 'events'),
    schedules,
    now: new Date(),
  });
  const connection = await connect();
  try {
    process.stderr.write(`invoking ${name} against ${connection.target}\n`);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { handler } = require(path.join(repositoryRoot, spec.entry)) as {
      handler: (event: unknown, context: unknown) => Promise<unknown>;
    };
    const result = await handler(event, lambdaContext(name, spec.timeoutSeconds * 1000, spec.memoryMb));
    process.stdout.write(JSON.stringify(result ?? null, null, 2) + '\n');
  } finally {
    await connection.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
