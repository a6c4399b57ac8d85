// Schedule safetyNetLookahead (every SAFETY_NET_LOOKAHEAD_MINUTES): one look-ahead message per
// connection, each reading every scheduled email of its connection.
import { fanOut } from '../domain/safety-net/messages';
import { scheduledHandler } from '../middlewares/scheduled';

export const handler = scheduledHandler(async (run, { log }) => {
  const connections = await fanOut('lookahead');
  log.info('safety net look-aheads queued', { schedule: run.schedule, connections });
});
