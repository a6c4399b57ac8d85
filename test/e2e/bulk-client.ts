// A client of the bulk API as a customer would write one (create, PUT, poll, download), plus the
// independent reference the end-to-end tests compare results files with.
import { expectDocumented } from '../helpers/openapi-check';
import { startFixtureDns, type FixtureDns } from '../unit/validation/fixtures/dns-server';

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
  constructor(
    readonly baseUrl: string,
    readonly apiKey: string,
  ) {}

  /** An API call; its response is checked against docs/openapi.json (a mismatch throws). */
  async request(method: string, path: string, body?: unknown): Promise<Response> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        'x-api-key': this.apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await expectDocumented(method, path, response);
    return response;
  }

  async create(body: Record<string, unknown>): Promise<{ jobId: string; uploadUrl: string }> {
    const res = await this.request('POST', '/v1/email/validate-file', body);
    if (res.status !== 202) throw new Error(`create: ${res.status} ${await res.text()}`);
    return (await res.json()) as { jobId: string; uploadUrl: string };
  }

  async upload(uploadUrl: string, file: Buffer): Promise<Response> {
    return fetch(uploadUrl, { method: 'PUT', headers: { 'content-type': 'text/csv' }, body: file });
  }

  async status(jobId: string): Promise<JobBody> {
    const res = await this.request('GET', `/v1/email/validate-file/${jobId}`);
    if (res.status !== 200) throw new Error(`status: ${res.status} ${await res.text()}`);
    return (await res.json()) as JobBody;
  }

  /** Polls until the job leaves processing/awaiting_upload; returns every body seen. */
  async waitForEnd(jobId: string, timeoutMs = 60_000, everyMs = 150): Promise<JobBody[]> {
    const seen: JobBody[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const body = await this.status(jobId);
      seen.push(body);
      if (body.status !== 'processing' && body.status !== 'awaiting_upload') return seen;
      if (Date.now() > deadline) throw new Error(`job ${jobId} still ${body.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }

  async download(
    jobId: string,
  ): Promise<{ descriptor: Record<string, unknown>; file: Buffer; disposition: string | null }> {
    const res = await this.request('GET', `/v1/email/validate-file/${jobId}/download`);
    if (res.status !== 200) throw new Error(`download: ${res.status} ${await res.text()}`);
    const descriptor = (await res.json()) as { downloadUrl: string };
    const file = await fetch(descriptor.downloadUrl);
    if (file.status !== 200) throw new Error(`GET downloadUrl: ${file.status}`);
    return {
      descriptor,
      file: Buffer.from(await file.arrayBuffer()),
      disposition: file.headers.get('content-disposition'),
    };
  }

  /** Create, upload, wait, download. */
  async run(file: Buffer, body: Record<string, unknown>): Promise<RunResult> {
    const created = await this.create(body);
    const put = await this.upload(created.uploadUrl, file);
    if (put.status !== 200) throw new Error(`PUT: ${put.status} ${await put.text()}`);
    const seen = await this.waitForEnd(created.jobId);
    const final = seen[seen.length - 1]!;
    if (final.status !== 'completed') return { jobId: created.jobId, seen, final };
    return { jobId: created.jobId, seen, final, ...(await this.download(created.jobId)) };
  }
}

/** DNS for the engine: ok.test receives mail (MX on 127.0.0.1), slow.test fails, anything else does not exist. */
export function startBulkDns(): Promise<FixtureDns> {
  return startFixtureDns({
    'ok.test': { mx: [{ exchange: 'mx.ok.test', priority: 10 }] },
    'mx.ok.test': { a: ['127.0.0.1'] },
    'slow.test': { behaviour: 'servfail' },
  });
}

/** The verdicts the tests expect for the addresses they use (decisions.md "Status meaning"). */
function expectedStatus(cell: string | undefined): string {
  const email = cell?.trim() ?? '';
  if (email === '' || !email.includes('@')) return 'block_bounce_risk';
  const [local, domain] = email.toLowerCase().split('@') as [string, string];
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
  const statistics: Record<string, number> = {
    block_bounce_risk: 0,
    dead_email: 0,
    do_not_mail_abuse: 0,
    safe: 0,
    some_risk: 0,
  };
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
