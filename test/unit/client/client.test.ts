import {
  createMailvetClient,
  MailvetApiError,
  parseRetryAfter,
  type Described,
  type FileProgress,
  type JobStatusShape,
} from '../../../client';

interface Call {
  method: string;
  url: string;
  apiKey: string | null;
  body: string;
}

/** A fetch that records each request and answers from a queue of [status, body, headers]. */
function scriptedFetch(answers: [number, unknown, Record<string, string>?][]) {
  const calls: Call[] = [];
  const fetchFn = (async (input: Request | string, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    calls.push({
      method: request.method,
      url: request.url,
      apiKey: request.headers.get('x-api-key'),
      body: await request.text(),
    });
    const next = answers.shift();
    if (!next) throw new Error(`unexpected ${request.method} ${request.url}`);
    const [status, body, headers] = next;
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });
  }) as typeof fetch;
  return { calls, fetchFn };
}

const baseUrl = 'http://api.test';

describe('the typed client', () => {
  it('waits Retry-After before sending a rate-limited request again, with the same body', async () => {
    const waits: number[] = [];
    const { calls, fetchFn } = scriptedFetch([
      [429, { error: 'Rate limit exceeded' }, { 'retry-after': '2' }],
      [200, { requestId: 'r1', result: { reason: 'domain_ok', status: 'safe', subStatus: null } }],
    ]);
    const retries: number[] = [];
    const client = createMailvetClient({
      baseUrl,
      apiKey: 'k',
      fetch: fetchFn,
      sleep: async (ms) => void waits.push(ms),
      onRetry: (info) => retries.push(info.status),
    });
    const result = await client.validate('a@example.com');
    expect(result.result.status).toBe('safe');
    expect(waits).toEqual([2000]);
    expect(retries).toEqual([429]);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toEqual(calls[0]);
    expect(calls[0]).toMatchObject({
      method: 'POST',
      url: `${baseUrl}/v1/email/validate`,
      apiKey: 'k',
      body: '{"email":"a@example.com"}',
    });
  });

  it('sends waitMs as the body timeoutMs of the sync and batch calls, never of validate-async', async () => {
    const safe = { requestId: 'r1', result: { reason: 'domain_ok', status: 'safe', subStatus: null } };
    const { calls, fetchFn } = scriptedFetch([
      [200, safe],
      [200, { results: [safe] }],
      [202, { pollUrl: '/v1/email/validate/r2', requestId: 'r2', retryAfter: 1 }],
    ]);
    const client = createMailvetClient({ baseUrl, apiKey: 'k', fetch: fetchFn });
    await client.submitValidation('a@example.com', { waitMs: 2000 });
    await client.submitBatch(['a@example.com'], { waitMs: 1500 });
    await client.submitValidation('a@example.com', { waitMs: 2000, async: true });
    expect(calls.map((c) => [c.url, JSON.parse(c.body)])).toEqual([
      [`${baseUrl}/v1/email/validate`, { email: 'a@example.com', timeoutMs: 2000 }],
      [`${baseUrl}/v1/email/validate-batch`, { emails: ['a@example.com'], timeoutMs: 1500 }],
      [`${baseUrl}/v1/email/validate-async`, { email: 'a@example.com' }],
    ]);
  });

  it('gives up after maxRetries 503s and throws the API text with its Retry-After', async () => {
    const unavailable: [number, unknown, Record<string, string>] = [
      503,
      { error: 'Service temporarily unavailable' },
      { 'retry-after': '3' },
    ];
    const { calls, fetchFn } = scriptedFetch([unavailable, unavailable, unavailable]);
    const client = createMailvetClient({ baseUrl, fetch: fetchFn, maxRetries: 2, sleep: async () => {} });
    const error = await client.getJob('j1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailvetApiError);
    expect(error).toMatchObject({
      status: 503,
      apiMessage: 'Service temporarily unavailable',
      retryAfterSeconds: 3,
    });
    expect(calls).toHaveLength(3);
    expect(calls[0]!.url).toBe(`${baseUrl}/v1/email/validate-file/j1`);
  });

  it('does not retry other errors and reports their text', async () => {
    const { calls, fetchFn } = scriptedFetch([[400, { error: 'fileName must end in .csv' }]]);
    const client = createMailvetClient({ baseUrl, fetch: fetchFn });
    await expect(client.createJob({ emailColumn: 0, fileName: 'x.txt' })).rejects.toThrow(
      '400 fileName must end in .csv',
    );
    expect(calls).toHaveLength(1);
  });

  it('polls a 202 answer Retry-After apart until the verdict', async () => {
    const waits: number[] = [];
    const pending = { pollUrl: '/v1/email/validate/r1', requestId: 'r1', retryAfter: 1 };
    const { calls, fetchFn } = scriptedFetch([
      [202, pending],
      [202, { ...pending, retryAfter: 5 }],
      [
        200,
        { requestId: 'r1', result: { reason: 'dns_no_mx', status: 'block_bounce_risk', subStatus: null } },
      ],
    ]);
    const client = createMailvetClient({ baseUrl, fetch: fetchFn, sleep: async (ms) => void waits.push(ms) });
    const result = await client.validate('a@example.com', { async: true });
    expect(result.result.reason).toBe('dns_no_mx');
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      `POST ${baseUrl}/v1/email/validate-async`,
      `GET ${baseUrl}/v1/email/validate/r1`,
      `GET ${baseUrl}/v1/email/validate/r1`,
    ]);
    expect(waits).toEqual([1000, 5000]);
  });

  it('polls a job soon after it starts, then less often: 100 ms, doubling to 1 s; a given interval stays', async () => {
    const job = { jobId: 'j1', totalEmails: 2, processedEmails: 0, percentComplete: 0 };
    const answers = (n: number): [number, unknown][] => [
      ...Array.from({ length: n }, (): [number, unknown] => [200, { ...job, status: 'processing' }]),
      [200, { ...job, status: 'completed', processedEmails: 2, percentComplete: 100 }],
    ];
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    const client = createMailvetClient({ baseUrl, fetch: scriptedFetch(answers(7)).fetchFn, sleep });
    expect((await client.waitForJob('j1')).status).toBe('completed');
    expect(waits).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);

    waits.length = 0;
    const fixed = createMailvetClient({ baseUrl, fetch: scriptedFetch(answers(3)).fetchFn, sleep });
    await fixed.waitForJob('j1', { pollIntervalMs: 20 });
    expect(waits).toEqual([20, 20, 20]);
  });

  it('runs a file through create, upload, processing and download, reporting each phase', async () => {
    const job = { jobId: 'j1', totalEmails: 2, processedEmails: 0, percentComplete: 0 };
    const { calls, fetchFn } = scriptedFetch([
      [202, { jobId: 'j1', status: 'awaiting_upload', uploadExpiresIn: 300, uploadUrl: 'http://s3.test/up' }],
      [200, { ...job, status: 'processing' }],
      [200, { ...job, status: 'completed', processedEmails: 2, percentComplete: 100 }],
      [200, { jobId: 'j1', downloadUrl: 'http://s3.test/down', expiresIn: 3600, format: 'csv' }],
      [200, 'email,mailvet_status\na@ok.test,safe\n', { 'content-type': 'text/csv' }],
    ]);
    const uploads: { url: string; body: unknown }[] = [];
    const client = createMailvetClient({
      baseUrl,
      apiKey: 'k',
      fetch: fetchFn,
      sleep: async () => {},
      uploader: async (url, body, onProgress) => {
        uploads.push({ url, body });
        onProgress(10, 20);
        onProgress(20, 20);
        return { status: 200, text: '' };
      },
    });
    const events: FileProgress[] = [];
    const done = await client.validateFile(
      'email\na@ok.test\n',
      { emailColumn: 0, fileName: 'leads.csv' },
      (event) => events.push(event),
    );
    expect(done.job.status).toBe('completed');
    expect(new TextDecoder().decode(done.results)).toBe('email,mailvet_status\na@ok.test,safe\n');
    expect(uploads).toEqual([{ url: 'http://s3.test/up', body: 'email\na@ok.test\n' }]);
    expect(JSON.parse(calls[0]!.body)).toEqual({ emailColumn: 0, fileName: 'leads.csv' });
    expect(calls[4]).toMatchObject({ url: 'http://s3.test/down', apiKey: null });
    expect(events.map((e) => e.phase)).toEqual(['upload', 'upload', 'processing', 'processing', 'download']);
  });

  it('returns a failed job without downloading', async () => {
    const { calls, fetchFn } = scriptedFetch([
      [202, { jobId: 'j2', status: 'awaiting_upload', uploadExpiresIn: 300, uploadUrl: 'http://s3.test/up' }],
      [200, { jobId: 'j2', status: 'failed', error: 'The file has no data rows' }],
    ]);
    const client = createMailvetClient({
      baseUrl,
      fetch: fetchFn,
      uploader: async () => ({ status: 200, text: '' }),
    });
    const done = await client.validateFile(new Uint8Array(), { emailColumn: 0 });
    expect(done).toEqual({
      jobId: 'j2',
      job: { jobId: 'j2', status: 'failed', error: 'The file has no data rows' },
    });
    expect(calls).toHaveLength(2);
  });

  it("throws S3's message when the upload is refused", async () => {
    const { fetchFn } = scriptedFetch([
      [202, { jobId: 'j3', status: 'awaiting_upload', uploadExpiresIn: 300, uploadUrl: 'http://s3.test/up' }],
    ]);
    const client = createMailvetClient({
      baseUrl,
      fetch: fetchFn,
      uploader: async () => ({ status: 403, text: '<Error><Message>Request has expired</Message></Error>' }),
    });
    await expect(client.validateFile('a@ok.test\n', { emailColumn: 0 })).rejects.toThrow(
      '403 Request has expired',
    );
  });

  it('asks for a filtered download with status and columns as comma-separated lists', async () => {
    const descriptor = {
      jobId: 'j1',
      downloadUrl: 'http://s3.test/x',
      expiresIn: 900,
      fileName: 'x.csv',
      format: 'csv',
    };
    const { calls, fetchFn } = scriptedFetch([
      [200, descriptor],
      [200, descriptor],
    ]);
    const client = createMailvetClient({ baseUrl, apiKey: 'k', fetch: fetchFn });
    await client.getDownload('j1', { status: ['safe', 'some_risk'], columns: ['status', 'reason'] });
    await client.getDownload('j1');
    expect(calls.map((c) => c.url)).toEqual([
      `${baseUrl}/v1/email/validate-file/j1/download?status=safe%2Csome_risk&columns=status%2Creason`,
      `${baseUrl}/v1/email/validate-file/j1/download`,
    ]);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('60', now)).toBe(60_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

// Compile-time checks (npm run build fails when they do not hold): a bare `{type: object}` response
// (generated as Record<string, never>) falls back to the named shape; a concrete one is used as generated.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
export type _FallsBackOnBareObjects = Holds<
  Same<Described<Record<string, never>, JobStatusShape>, JobStatusShape>
>;
export type _UsesConcreteSchemas = Holds<
  Same<Described<{ jobId: string }, JobStatusShape>, { jobId: string }>
>;
