// Settings of DNS patience (issue #33): how long after a chunk's first pass a bulk job asks again for
// the domains that timed out. DNS_TIMEOUT_MS, the budget of one DNS question, stays in settings.ts.
import { z } from 'zod';

export const dnsRetrySettings = {
  /**
   * Seconds after which a bulk chunk whose domains timed out (or were still unresolved at its DNS
   * deadline) is validated again, those domains asked afresh, before they read some_risk / dns_timeout
   * (SQS DelaySeconds, at most 900). 0: again at once.
   */
  DNS_RETRY_DELAY_SECONDS: z.coerce.number().int().min(0).max(900).default(30),
};
