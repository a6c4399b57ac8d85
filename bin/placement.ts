// `npm run placement -- --day YYYY-MM-DD [--wait-seconds N]`: runs day D's placement tests as if it
// were that day (decisions "Connected mailboxes"): every mailbox of the network sends its tests, then
// the receivers are read until every test is found or the wait runs out (the rest: not found), and
// each sender's reputation of D is written. Works on a running `npm start` (same DATA_DIR), a deployed
// table, or the local data directory (local/connect.ts); exits when the day's reading is done.
import { mailServers } from '../functions/clients/mail-servers';
import { systemClock } from '../functions/clock';
import { eachLimited } from '../functions/concurrency';
import {
  checkPlacement,
  planPlacementDay,
  sendPlacementTests,
  type PlacementCheckMessage,
} from '../functions/domain/mailboxes/placement';
import { isDate } from '../functions/domain/workspace/dates';
import { logger } from '../functions/log';
import { settings } from '../functions/settings';
import { connect } from '../local/connect';

function option(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(argv: string[]): Promise<void> {
  const day = option(argv, '--day');
  if (!day || !isDate(day))
    throw new Error('usage: npm run placement -- --day YYYY-MM-DD [--wait-seconds N]');
  const waitSeconds = Number(option(argv, '--wait-seconds') ?? 120);
  if (!Number.isFinite(waitSeconds) || waitSeconds < 0)
    throw new Error('--wait-seconds must be a number of seconds');
  const connection = await connect();
  try {
    process.stderr.write(`placement tests of ${day} on ${connection.target}\n`);
    const now = new Date(`${day}T${String(settings().PLACEMENT_HOUR_UTC).padStart(2, '0')}:00:00.000Z`);
    const log = logger.child({ function: 'placement', day });
    const plan = await planPlacementDay(day);
    const sent: Record<string, string> = {};
    await eachLimited(plan.sends, 4, async (message) => {
      let outcome = await sendPlacementTests(message, mailServers, { now, mailDate: systemClock() }, log);
      for (let retry = 0; outcome === 'retry' && retry < 2; retry++) {
        await sleep(1000);
        outcome = await sendPlacementTests(message, mailServers, { now, mailDate: systemClock() }, log);
      }
      sent[message.mailboxId] = outcome;
    });
    const deadline = systemClock().getTime() + waitSeconds * 1000;
    let open: PlacementCheckMessage[] = plan.checks;
    for (let round = 1; open.length > 0; round++) {
      const final = systemClock().getTime() >= deadline;
      const still: PlacementCheckMessage[] = [];
      await eachLimited(open, 4, async (message) => {
        const outcome = await checkPlacement(
          { ...message, attempt: round },
          mailServers,
          now,
          final,
          log,
          true,
        );
        if (outcome === 'again') still.push(message);
      });
      open = still;
      if (open.length > 0) await sleep(1000);
    }
    process.stdout.write(`${JSON.stringify({ day, sends: sent, receivers: plan.checks.length })}\n`);
  } finally {
    await connection.close();
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  },
);
