// The bulk API as the end-to-end tests drive it, over the typed client (client/): create, PUT, poll,
// download, every API answer checked against docs/openapi.json; plus the independent reference the
// tests compare results files with.
import {
  createMailvetClient,
  type CreateJobRequest,
  type DownloadDescriptor,
  type MailvetClient,
} from '../../client';
import { expectDocumented } from '../helpers/openapi-check';
import { startFixtureDns, type FixtureDns } from '../unit/validation/fixtures/dns-server';

/** A fetch that checks every answer of the API (not the storage's) against docs/openapi.json. */
function documentedFetch(baseUrl: string): typeof fetch {
  const apiOrigin = new URL(baseUrl).origin;
  return async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    const url = new URL(request.url);
    if (url.origin === apiOrigin) await expectDocumented(request.method, url.pathname, response);
    return response;
  };
}

export interface JobBody {
  jobId: string;
  status: string;
  totalEmails: number;
  processedEmails: number;
  percentComplete: number;
  statistics: Record<string, number> | null;
  completedAt: string | null;
  error?: string;
}

export interface RunResult {
  jobId: string;
  /** Every status body polled, in order. */
  seen: JobBody[];
  final: JobBody;
  descriptor?: Record<string, unknown>;
  file?: Buffer;
  disposition?: string | null;
}

export class BulkClient {
  /** Waits out the rate limit (Retry-After: 1); a job-limit 429 (Retry-After: 60) fails within seconds. */
  private readonly client: MailvetClient;
  /** No retries: tests that count 429s see every answer as the API gave it. */
  private readonly raw: MailvetClient;

  constructor(
    readonly baseUrl: string,
    readonly apiKey: string,
  ) {
    const checked = documentedFetch(baseUrl);
    this.client = createMailvetClient({ baseUrl, apiKey, maxRetries: 5, maxWaitMs: 2000, fetch: checked });
    this.raw = createMailvetClient({ baseUrl, apiKey, maxRetries: 0, fetch: checked });
  }

  /** Any route, answered as is (no retries). */
  request(method: string, path: string, body?: unknown): Promise<Response> {
    return this.raw.send(method, path, body);
  }

  async create(body: Record<string, unknown>): Promise<{ jobId: string; uploadUrl: string }> {
    // Bodies the schema refuses are sent on purpose too: the API, not the type, is under test.
    return this.client.createJob(body as CreateJobRequest);
  }

  /** The storage's answer to the PUT, as a Response (tests assert on refused uploads). */
  async upload(uploadUrl: string, file: Buffer): Promise<Response> {
    const answer = await this.client.putFile(uploadUrl, file);
    return new Response(answer.text, { status: answer.status });
  }

  async status(jobId: string): Promise<JobBody> {
    return (await this.client.getJob(jobId)) as JobBody;
  }

  /** Polls until the job leaves processing/awaiting_upload; returns every body seen. */
  async waitForEnd(jobId: string, timeoutMs = 60_000, everyMs = 150): Promise<JobBody[]> {
    const seen: JobBody[] = [];
    await this.client.waitForJob(jobId, {
      timeoutMs,
      pollIntervalMs: everyMs,
      onStatus: (job) => seen.push(job as JobBody),
    });
    return seen;
  }

  async download(
    jobId: string,
  ): Promise<{ descriptor: Record<string, unknown>; file: Buffer; disposition: string | null }> {
    return this.fetchFile(await this.client.getDownload(jobId));
  }

  private async fetchFile(
    descriptor: DownloadDescriptor,
  ): Promise<{ descriptor: Record<string, unknown>; file: Buffer; disposition: string | null }> {
    const file = await this.client.fetchResults(descriptor.downloadUrl);
    return {
      descriptor: { ...descriptor },
      file: Buffer.from(await file.arrayBuffer()),
      disposition: file.headers.get('content-disposition'),
    };
  }

  /** Create, upload, wait, download. */
  async run(file: Buffer, body: Record<string, unknown>): Promise<RunResult> {
    const seen: JobBody[] = [];
    const end = await this.client.runFileJob(
      { ...(body as CreateJobRequest), pollIntervalMs: 150, timeoutMs: 60_000 },
      (uploadUrl) => this.client.uploadFile(uploadUrl, file),
      (progress) => {
        if (progress.phase === 'processing') seen.push(progress.job as JobBody);
      },
    );
    const final = seen[seen.length - 1]!;
    if (!end.download) return { jobId: end.jobId, seen, final };
    return { jobId: end.jobId, seen, final, ...(await this.fetchFile(end.download)) };
  }
}

/** Every status at 0: the counts a reference results file starts from. */
export const zeroStatistics = (): Record<string, number> => ({
  block_bounce_risk: 0,
  dead_email: 0,
  do_not_mail_abuse: 0,
  safe: 0,
  some_risk: 0,
});

/** DNS for the engine: ok.test receives mail (MX on 127.0.0.1), slow.test fails, anything else does not exist. */
export function startBulkDns(): Promise<FixtureDns> {
  return startFixtureDns({
    'ok.test': { mx: [{ exchange: 'mx.ok.test', priority: 10 }] },
    'mx.ok.test': { a: ['127.0.0.1'] },
    'slow.test': { behaviour: 'servfail' },
  });
}

/** The test addresses' statuses as docs/api.md lists them (the name before any +tag, in any case). */
const testAddressStatus: Record<string, string> = {
  safe: 'safe',
  'catch-all': 'safe',
  bounce: 'block_bounce_risk',
  disabled: 'block_bounce_risk',
  dead: 'dead_email',
  abuse: 'do_not_mail_abuse',
  full: 'some_risk',
  greylisted: 'some_risk',
  slow: 'safe',
};

/** The verdicts the tests expect for the addresses they use (docs/api.md "The five statuses"). */
function expectedStatus(cell: string | undefined): string {
  const email = cell?.trim() ?? '';
  if (email === '' || !email.includes('@')) return 'block_bounce_risk';
  const [local, domain] = email.toLowerCase().split('@') as [string, string];
  if (domain === 'mailvet.test') return testAddressStatus[local.split('+')[0]!] ?? 'block_bounce_risk';
  if (domain === 'slow.test') return 'some_risk';
  if (domain !== 'ok.test') return 'block_bounce_risk';
  // A non-ASCII local part needs SMTPUTF8, which not every server speaks.
  if ([...local].some((c) => c.charCodeAt(0) > 0x7f)) return 'some_risk';
  if (local === 'abuse' || local === 'postmaster') return 'do_not_mail_abuse';
  if (local === 'info' || local === 'sales') return 'some_risk';
  return 'safe';
}

export interface CsvModel {
  delimiter: string;
  /** Rows as field values; a field given as { raw } is written as is (already quoted). */
  rows: (string | { raw: string })[][];
  header?: boolean;
  eol?: string;
  finalEol?: boolean;
  bom?: boolean;
  emailColumn: number;
}

/** The upload and the results file the service must return for it, built without the service's code. */
export function buildCsv(m: CsvModel): {
  input: Buffer;
  expected: Buffer;
  statistics: Record<string, number>;
} {
  const eol = m.eol ?? '\n';
  const statistics = zeroStatistics();
  let input = m.bom ? '\ufeff' : '';
  let expected = input;
  m.rows.forEach((fields, n) => {
    const line = fields
      .map((f) =>
        typeof f === 'string'
          ? /["\r\n]/.test(f) || f.includes(m.delimiter)
            ? `"${f.replace(/"/g, '""')}"`
            : f
          : f.raw,
      )
      .join(m.delimiter);
    const end = n < m.rows.length - 1 || m.finalEol !== false ? eol : '';
    input += line + end;
    if (fields.length === 0) {
      expected += end;
      return;
    }
    let label: string;
    if (n === 0 && m.header) label = 'mailvet_status';
    else {
      const cell = fields[m.emailColumn];
      const text = typeof cell === 'object' ? cell.raw.replace(/^\s*"|"\s*$/g, '') : cell;
      label = expectedStatus(text);
      statistics[label]!++;
    }
    expected += line + m.delimiter + label + end;
  });
  return { input: Buffer.from(input, 'utf8'), expected: Buffer.from(expected, 'utf8'), statistics };
}
