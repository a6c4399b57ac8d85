// `npm run bench:bulk -- --estimate [rows]`: in bench:bulk's setting (its generated file, cut to `rows`
// data rows, default 100,000; DNS served on 127.0.0.1; the local runtime), an estimate job of the file
// against the full job of it, each with its own domains (ownDomains). Each is timed from the end of its upload (the same PUT for both) to
// `completed`; the end-to-end time (PUT included), the part of it the 20 ms poll added (completedAt to
// the poll that saw it) and the process's CPU time are printed beside it. A small job of each kind runs
// first, so neither pays the runtime's cold starts. `estimate steps:` gives the estimate's timeline
// (functions/domain/bulk/estimate/timeline.ts), from the end of its upload. `estimate_cpu_ratio=` gives the CPU times' ratio;
// the last line reads `estimate_ratio=<estimate / full>` (processing times); it must stay under 0.1.
import { subscribe } from 'node:diagnostics_channel';
import os from 'node:os';
import { createMailvetClient, type JobStatus, type MailvetClient } from '../client';
import { demoIds } from '../local/demo/accounts';
import { addCredits } from '../functions/domain/usage';
import { startTestRuntime } from '../test/helpers/local-runtime';
import { startFixtureDns, type Zones } from '../test/unit/validation/fixtures/dns-server';
import {
  estimateTimelineChannelName,
  type EstimateTimelineMessage,
} from '../functions/domain/bulk/estimate/timeline';

/** The estimates' step timelines as their processing publishes them (same thread: no worker threads). */
const timelines = new Map<string, EstimateTimelineMessage>();
subscribe(estimateTimelineChannelName, (message) => {
  const timeline = message as EstimateTimelineMessage;
  timelines.set(timeline.jobId, timeline);
});

/**
 * The file with its domains renamed `dN.<run>.test`: the engine's domain cache is per process and the
 * local runtime runs every function in one, so each job resolves its own domains, cold, as it would in a
 * fresh Lambda.
 */
function ownDomains(file: Buffer, run: string): Buffer {
  return Buffer.from(file.toString('utf8').replace(/@(@?)(d\d+)\.test/g, `@$1$2.${run}.test`), 'utf8');
}

function withCopies(zones: Zones, runs: string[]): Zones {
  const out: Zones = { ...zones };
  for (const [name, zone] of Object.entries(zones))
    if (/^d\d+\.test$/.test(name))
      for (const run of runs) out[name.replace(/\.test$/, `.${run}.test`)] = zone;
  return out;
}

interface Timed {
  /** From the end of the upload to completed. */
  processing: number;
  /** From the start of the upload to completed. */
  endToEnd: number;
  /** Of `processing`: from the job's completedAt to the poll that saw it (the poll's own cost). */
  pollLag: number;
  /** CPU seconds the whole process (runtime, DNS server, this poll) used during `processing`. */
  cpu: number;
  job: JobStatus;
  /** An estimate's steps, ms from the end of the upload, then the poll that saw it completed. */
  steps?: string;
}

async function timeJob(client: MailvetClient, file: Buffer, estimate: boolean): Promise<Timed> {
  const created = await client.createJob({ emailColumn: 2, ...(estimate ? { estimate: true } : {}) });
  const t0 = performance.now();
  await client.uploadFile(created.uploadUrl, file);
  const uploaded = performance.now();
  const cpu0 = process.cpuUsage();
  const job = await client.waitForJob(created.jobId, { pollIntervalMs: 20 });
  const cpu = process.cpuUsage(cpu0);
  const done = performance.now();
  const seenAtMs = Date.now();
  if (job.status !== 'completed') throw new Error(`job ${job.status}: ${job.error}`);
  // the timeline is published after the job's last steps, which may end after the poll saw it
  await new Promise((resolve) => setTimeout(resolve, 200));
  const timeline = timelines.get(created.jobId);
  const ms = (at: number) => Math.round(at - uploaded);
  const steps = timeline
    ? [
        `PUT ${Math.round(t0 - uploaded)}`,
        'uploaded 0',
        ...timeline.marks.map((m) => `${m.step} ${ms(m.at)}`),
      ]
        .concat(`poll saw it ${ms(done)}`)
        .join(', ')
    : undefined;
  return {
    processing: (done - uploaded) / 1000,
    endToEnd: (done - t0) / 1000,
    pollLag: job.completedAt ? Math.max(0, seenAtMs - Date.parse(job.completedAt)) / 1000 : 0,
    cpu: (cpu.user + cpu.system) / 1e6,
    job,
    ...(steps ? { steps } : {}),
  };
}

const line = (name: string, t: Timed, rows: string) =>
  console.log(
    `${name}: ${t.processing.toFixed(2)} s from upload to completed (${t.endToEnd.toFixed(2)} s with the PUT; ` +
      `${t.pollLag.toFixed(2)} s of it from completedAt to the poll that saw it), ` +
      `${t.cpu.toFixed(2)} s of CPU, ${rows}`,
  );

export async function benchEstimate(
  generateCsv: (maxRows: number) => Buffer,
  dnsZones: () => Zones,
  rows: number,
): Promise<void> {
  const file = generateCsv(rows);
  const load = () =>
    os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(`input: ${(file.length / 1048576).toFixed(1)} MB, ${rows} rows; load ${load()}`);
  const dns = await startFixtureDns(withCopies(dnsZones(), ['warm', 'estimate', 'full']));
  const runtime = await startTestRuntime({
    DNS_SERVERS: dns.servers.join(','),
    ALLOW_PRIVATE_MX: 'true',
    LOG_LEVEL: 'warn',
  });
  await addCredits(demoIds.acme, 2 * rows + 10_000);
  try {
    const client = createMailvetClient({ baseUrl: runtime.baseUrl, apiKey: runtime.keys.admin });
    const warmUp = ownDomains(generateCsv(2000), 'warm');
    await timeJob(client, warmUp, true);
    await timeJob(client, warmUp, false);
    const estimate = await timeJob(client, ownDomains(file, 'estimate'), true);
    const full = await timeJob(client, ownDomains(file, 'full'), false);
    const projected = estimate.job.estimate?.statistics;
    const actual = full.job.statistics;
    if (!projected || !actual) throw new Error('no statistics');
    const gaps = (Object.keys(actual) as (keyof typeof actual)[]).map(
      (status) => Math.abs(projected[status] - actual[status]) / full.job.totalEmails,
    );
    line('estimate', estimate, `${estimate.job.estimate?.sampled} rows sampled`);
    line('full job', full, `${full.job.totalEmails} rows`);
    if (estimate.steps) console.log(`estimate steps (ms from the end of the upload): ${estimate.steps}`);
    console.log(
      `largest gap between projected and actual share: ${(Math.max(...gaps) * 100).toFixed(2)} points`,
    );
    console.log(`load after: ${load()}`);
    // CPU time moves less with the machine's load than the wall-clock ratio below
    console.log(`estimate_cpu_ratio=${(estimate.cpu / full.cpu).toFixed(3)}`);
    console.log(`estimate_ratio=${(estimate.processing / full.processing).toFixed(3)}`);
  } finally {
    await runtime.stop();
    await dns.close();
  }
}
