// Schedule safetyNetSync (every SAFETY_NET_SYNC_MINUTES): one sync message per connection.
import { fanOut } from '../domain/safety-net/messages';
import { scheduledHandler } from '../middlewares/scheduled';

export const handler = scheduledHandler(async (run, { log }) => {
  const connections = await fanOut('sync');
  log.info('safety net syncs queued', { schedule: run.schedule, connections });
});
