// `npm run bench:bulk -- --estimate [rows]`: in bench:bulk's setting (its generated file, cut to `rows`
// data rows, default 100,000; DNS served on 127.0.0.1; the local runtime), the time an estimate job
// takes from its upload to completed, against the full job of the same file (upload to completed).
// The last line reads `estimate_ratio=<estimate / full>`; it must stay under 0.1.
import os from 'node:os';
import { createMailvetClient, type MailvetClient } from '../client';
import { demoIds } from '../functions/domain/accounts/demo-accounts';
import { addCredits } from '../functions/domain/usage';
import { startTestRuntime } from '../test/helpers/local-runtime';
import { startFixtureDns, type Zones } from '../test/unit/validation/fixtures/dns-server';

/** Seconds from the start of the upload to the job leaving processing. */
async function timeJob(client: MailvetClient, file: Buffer, estimate: boolean) {
  const created = await client.createJob({ emailColumn: 2, ...(estimate ? { estimate: true } : {}) });
  const t0 = performance.now();
  await client.uploadFile(created.uploadUrl, file);
  const job = await client.waitForJob(created.jobId, { pollIntervalMs: 50 });
  const seconds = (performance.now() - t0) / 1000;
  if (job.status !== 'completed') throw new Error(`job ${job.status}: ${job.error}`);
  return { seconds, job };
}

export async function benchEstimate(
  generateCsv: (maxRows: number) => Buffer,
  dnsZones: () => Zones,
  rows: number,
): Promise<void> {
  const file = generateCsv(rows);
  console.log(
    `input: ${(file.length / 1048576).toFixed(1)} MB, ${rows} rows; load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const dns = await startFixtureDns(dnsZones());
  const runtime = await startTestRuntime({
    DNS_SERVERS: dns.servers.join(','),
    ALLOW_PRIVATE_MX: 'true',
    LOG_LEVEL: 'warn',
  });
  await addCredits(demoIds.acme, 2 * rows);
  try {
    const client = createMailvetClient({ baseUrl: runtime.baseUrl, apiKey: runtime.keys.admin });
    const estimate = await timeJob(client, file, true);
    const full = await timeJob(client, file, false);
    const projected = estimate.job.estimate?.statistics ?? {};
    const actual = full.job.statistics ?? {};
    const worst = Math.max(
      ...Object.keys(actual).map(
        (status) =>
          Math.abs(
            (projected[status as keyof typeof projected] ?? 0) - actual[status as keyof typeof actual],
          ) / full.job.totalEmails,
      ),
    );
    console.log(
      `estimate: ${estimate.seconds.toFixed(2)} s (${estimate.job.estimate?.sampled} rows sampled)`,
    );
    console.log(`full job: ${full.seconds.toFixed(2)} s (${full.job.totalEmails} rows)`);
    console.log(`largest gap between projected and actual share: ${(worst * 100).toFixed(2)} points`);
    console.log(`estimate_ratio=${(estimate.seconds / full.seconds).toFixed(3)}`);
  } finally {
    await runtime.stop();
    await dns.close();
  }
}
