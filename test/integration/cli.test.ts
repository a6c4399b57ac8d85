// The `mailvet` CLI as a user runs it: a child process (bin/mailvet.js) against the local runtime,
// plus the runtime's own pages (`/` and `/docs`).
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FixtureDns } from '../unit/validation/fixtures/dns-server';
import { Readable } from 'node:stream';
import { createNodeClient, validateFile } from '../../client/node';
import { buildCsv, startBulkDns } from '../e2e/bulk-client';
import { fixtureDnsSettings, startTestRuntime, type TestRuntime } from '../helpers/local-runtime';

jest.setTimeout(180_000);

const root = path.resolve(__dirname, '../..');
let dns: FixtureDns;
let runtime: TestRuntime;
let dir: string;
const rateLimit = 8;

beforeAll(async () => {
  dns = await startBulkDns();
  // A low limit, so the rate-limit test can exhaust it; the CLI waits out the 429s it meets anyway.
  // A generous DNS timeout: the verdicts asserted below must not turn into dns_timeout on a busy machine.
  runtime = await startTestRuntime({
    ...fixtureDnsSettings(dns, 5000),
    RATE_LIMIT_PER_SECOND: String(rateLimit),
  });
  dir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-cli-'));
});

afterAll(async () => {
  await runtime?.stop();
  await dns?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `mailvet <args>`; `onStderr` sees stderr as it grows. */
function mailvet(
  args: string[],
  key: string = runtime.keys.admin,
  onStderr?: (soFar: string) => void,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'bin/mailvet.js'), ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: os.homedir(), MAILVET_URL: runtime.baseUrl, MAILVET_API_KEY: key },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (part: Buffer) => (stdout += part.toString()));
    child.stderr.on('data', (part: Buffer) => {
      stderr += part.toString();
      onStderr?.(stderr);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** stderr without the CLI's notes about waiting out a 429 (the low rate limit makes some likely). */
function errors(run: Run): string {
  return run.stderr.replace(/^mailvet: the API answered 429 .*\n/gm, '');
}

describe('mailvet validate', () => {
  it('prints the verdict and its reason on one line, exit 0', async () => {
    const run = await mailvet(['validate', 'ada@ok.test']);
    expect(run.code).toBe(0);
    expect(errors(run)).toBe('');
    expect(run.stdout).toMatch(/^ada@ok\.test: safe \([a-z_]+(, [a-z_]+)?\)\n$/);
  });

  it('prints the whole result body with --json, through the async endpoint with --async', async () => {
    const run = await mailvet(['validate', 'abuse@ok.test', '--async', '--json']);
    expect(run.code).toBe(0);
    const body = JSON.parse(run.stdout) as { email: string; result: { status: string }; requestId: string };
    expect(body).toMatchObject({ email: 'abuse@ok.test', result: { status: 'do_not_mail_abuse' } });
    expect(body.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('validates several addresses in one batch call, printing their verdicts in order', async () => {
    const run = await mailvet(['validate', 'safe@mailvet.test', 'bounce@mailvet.test', 'ada@ok.test']);
    expect(run.code).toBe(0);
    expect(errors(run)).toBe('');
    const lines = run.stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual([
      'safe@mailvet.test: safe (accepted)',
      'bounce@mailvet.test: block_bounce_risk (mailbox_not_found)',
    ]);
    expect(lines[2]).toMatch(/^ada@ok\.test: safe \(/);
    expect(lines).toHaveLength(4);
  });

  it('validates a plain list with --file (up to 100 addresses)', async () => {
    writeFileSync(path.join(dir, 'list.txt'), 'full@mailvet.test\r\n\n  dead@mailvet.test  \n');
    const run = await mailvet(['validate', '--file', 'list.txt', '--json']);
    expect(run.code).toBe(0);
    const results = JSON.parse(run.stdout) as { email: string; result: { reason: string } }[];
    expect(results.map((r) => [r.email, r.result.reason])).toEqual([
      ['full@mailvet.test', 'mailbox_full'],
      ['dead@mailvet.test', 'known_dead'],
    ]);
    writeFileSync(
      path.join(dir, 'long.txt'),
      Array.from({ length: 101 }, (_, i) => `safe+${i}@mailvet.test`).join('\n'),
    );
    const long = await mailvet(['validate', '--file', 'long.txt']);
    expect(long).toMatchObject({ code: 1, stdout: '' });
    expect(errors(long)).toContain('long.txt has 101 addresses; --file takes at most 100');
    const missing = await mailvet(['validate', '--file', 'nothing.txt']);
    expect(missing.code).toBe(1);
    expect(errors(missing)).toContain('cannot read nothing.txt (ENOENT)');
  });

  it('exits 1 with the API text for a bad key', async () => {
    const run = await mailvet(['validate', 'ada@ok.test'], 'not-a-key');
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(errors(run)).toBe('mailvet: Invalid API key (HTTP 403)\n');
  });

  it('waits out a 429 after Retry-After and then answers', async () => {
    // Right after every second boundary (the limit's window) a burst of twice the limit, and two
    // request loops in between, spend the company's budget until the CLI reports that it is waiting. A
    // CLI request counted before them still gets through, so the scenario runs again until the CLI has
    // met a 429 (at most 8 times).
    const url = `${runtime.baseUrl}/v1/users?limit=1`;
    const headers = { 'x-api-key': runtime.keys.other };
    let run: Run | undefined;
    for (let attempt = 0; attempt < 8 && !run?.stderr.includes('429'); attempt++) {
      let busy = true;
      let limited = 0;
      const until = Date.now() + 60_000;
      const bursts: Promise<void>[] = [];
      const send = () =>
        fetch(url, { headers }).then(async (response) => {
          if (response.status === 429) limited++;
          await response.arrayBuffer();
        });
      const loops = [0, 1].map(async () => {
        while (busy && Date.now() < until) await send();
      });
      const hammer = (async () => {
        while (busy && Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
          if (!busy) break;
          for (let i = 0; i < 2 * rateLimit; i++) bursts.push(send());
        }
      })();
      while (limited === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      run = await mailvet(['validate', 'ada@ok.test'], runtime.keys.other, (stderr) => {
        if (stderr.includes('retrying')) busy = false;
      });
      busy = false;
      await Promise.all([hammer, ...loops]);
      await Promise.all(bursts);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^ada@ok\.test: [a-z_]+ \(/);
    }
    expect(run!.stderr).toMatch(
      /^mailvet: the API answered 429 \(rate limited\); retrying in 1\.0 s \(retry 1\)$/m,
    );
  });
});

describe('mailvet validate-file', () => {
  it('validates a file with progress lines, a statistics table and the results beside it', async () => {
    const rows = [['name', 'email']];
    // About 500 KB, so the upload is read in several chunks and reports several steps.
    for (let i = 0; i < 20_000; i++)
      rows.push([`person ${i}`, i % 4 === 0 ? `p${i}@nowhere.test` : `p${i}@ok.test`]);
    const csv = buildCsv({ delimiter: ',', header: true, emailColumn: 1, rows });
    const input = path.join(dir, 'leads.csv');
    writeFileSync(input, csv.input);

    const run = await mailvet(['validate-file', 'leads.csv', '--column', 'Email']);

    expect(run.code).toBe(0);
    const uploaded = [...run.stderr.matchAll(/^upload: (\d+)% \(([\d.]+ K?B) of ([\d.]+ KB)\)$/gm)];
    const percents = uploaded.map((line) => Number(line[1]));
    expect(percents.length).toBeGreaterThanOrEqual(4);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(percents[0]).toBe(0);
    expect(uploaded.at(-1)!.slice(1)).toEqual([
      '100',
      uploaded.at(-1)![3],
      `${(csv.input.length / 1024).toFixed(1)} KB`,
    ]);
    expect(run.stderr).toMatch(/^completed: 100% \(20000 of 20000 emails\)$/m);
    expect(run.stderr).toMatch(/^download: [\d.]+ KB$/m);
    expect(run.stdout).toMatch(/^job [0-9a-f-]{36}: completed, 20000 of 20000 emails$/m);
    expect(run.stdout).toMatch(/^ {2}safe +15000 +75\.0%$/m);
    expect(run.stdout).toMatch(/^ {2}block_bounce_risk +5000 +25\.0%$/m);
    expect(run.stdout).toContain('results: leads_processed_by_mailvet.csv\n');
    expect(readFileSync(path.join(dir, 'leads_processed_by_mailvet.csv')).equals(csv.expected)).toBe(true);
  });

  it('finds the email column by its header when --column is left out, and writes to --out', async () => {
    const csv = buildCsv({
      delimiter: ';',
      header: true,
      emailColumn: 2,
      rows: [
        ['id', 'name', 'E-mail'],
        ['1', 'Ann', 'ann@ok.test'],
      ],
    });
    writeFileSync(path.join(dir, 'semi.csv'), csv.input);
    const run = await mailvet(['validate-file', 'semi.csv', '--out', 'semi-out.csv', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: 'completed',
      statistics: { safe: 1 },
      resultsFile: 'semi-out.csv',
    });
    expect(readFileSync(path.join(dir, 'semi-out.csv')).equals(csv.expected)).toBe(true);
  });

  it('gives the job --callback-url, which receives the completion webhook', async () => {
    let resolveEvent: (body: string) => void = () => undefined;
    const delivered = new Promise<string>((resolve) => (resolveEvent = resolve));
    const receiver = http.createServer((request, response) => {
      let body = '';
      request.on('data', (part: Buffer) => (body += part.toString()));
      request.on('end', () => {
        response.end();
        resolveEvent(body);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = receiver.address() as AddressInfo;
      writeFileSync(path.join(dir, 'hook.csv'), 'email\nann@ok.test\n');
      const run = await mailvet([
        'validate-file',
        'hook.csv',
        '--callback-url',
        `http://127.0.0.1:${port}/hook`,
      ]);
      expect(run.code).toBe(0);
      const jobId = /^job ([0-9a-f-]{36}):/m.exec(run.stdout)![1]!;
      expect(JSON.parse(await delivered)).toMatchObject({
        event: 'bulk_validation.completed',
        jobId,
        status: 'completed',
        totalEmails: 1,
      });
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('exits 1 with the job error when the job fails', async () => {
    writeFileSync(path.join(dir, 'empty.csv'), 'name,email\n');
    const run = await mailvet(['validate-file', 'empty.csv', '--column', '1']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^mailvet: job [0-9a-f-]{36} failed: .*no data rows/m);
    expect(run.stdout).toBe('');
  });

  it('exits 2 for usage mistakes, with the usage text', async () => {
    writeFileSync(path.join(dir, 'plain.csv'), 'name,address\nAnn,ann@ok.test\n');
    const noColumn = await mailvet(['validate-file', 'plain.csv']);
    expect(noColumn.code).toBe(2);
    expect(noColumn.stderr).toContain('no "email" column in the first row ("name", "address")');
    const unknownColumn = await mailvet(['validate-file', 'plain.csv', '--column', 'mail']);
    expect(unknownColumn.code).toBe(2);
    expect(unknownColumn.stderr).toContain('no column named "mail"');
    for (const args of [
      [],
      ['frobnicate'],
      ['validate'],
      ['validate-file', 'missing.csv'],
      ['job', 'x', '--async'],
      ['validate', 'a@ok.test', 'b@ok.test', '--async'],
      ['validate', 'a@ok.test', '--file', 'list.txt'],
    ]) {
      const run = await mailvet(args);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('usage:');
    }
  });
});

describe('mailvet job and download', () => {
  it('shows a job and downloads its results under the name the service gives them', async () => {
    writeFileSync(path.join(dir, 'two.csv'), 'email\nann@ok.test\nbob@nowhere.test\n');
    const first = await mailvet(['validate-file', 'two.csv']);
    expect(first.code).toBe(0);
    const jobId = /^job ([0-9a-f-]{36}):/m.exec(first.stdout)![1]!;

    const job = await mailvet(['job', jobId]);
    expect(job.code).toBe(0);
    expect(job.stdout).toMatch(new RegExp(`^job ${jobId}: completed, 2 of 2 emails$`, 'm'));

    rmSync(path.join(dir, 'two_processed_by_mailvet.csv'));
    const download = await mailvet(['download', jobId]);
    expect(download.code).toBe(0);
    expect(download.stdout).toMatch(/^results: two_processed_by_mailvet\.csv \(\d+ B\)\n$/);
    expect(readFileSync(path.join(dir, 'two_processed_by_mailvet.csv'), 'utf8')).toBe(
      'email,mailvet_status\nann@ok.test,safe\nbob@nowhere.test,block_bounce_risk\n',
    );

    const unknown = await mailvet(['job', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.code).toBe(1);
    expect(errors(unknown)).toBe('mailvet: Job not found (HTTP 404)\n');
  });
});

describe('mailvet validate-file --estimate and run-estimate', () => {
  it('prints the projection, the validations a full run uses and its command; run-estimate runs it', async () => {
    const rows = ['email'];
    for (let i = 0; i < 4000; i++) rows.push(i % 4 === 0 ? `p${i}@nowhere.test` : `p${i}@ok.test`);
    writeFileSync(path.join(dir, 'sampled.csv'), `${rows.join('\n')}\n`);

    const estimate = await mailvet(['validate-file', 'sampled.csv', '--estimate']);
    expect(errors(estimate)).not.toMatch(/^mailvet: (?!the API answered 429)/m);
    expect(estimate.code).toBe(0);
    const jobId = /^estimate ([0-9a-f-]{36}): projected from a random sample of 1000 of 4000 rows$/m.exec(
      estimate.stdout,
    )?.[1];
    expect(jobId).toBeDefined();
    // a sample of 1,000 out of a 75/25 mix: the projection is near 3000 / 1000
    const safe = Number(/^ {2}safe +(\d+) /m.exec(estimate.stdout)![1]);
    expect(Math.abs(safe - 3000)).toBeLessThan(200);
    expect(estimate.stdout).toContain('the full run will use 4000 validations (the sample used 1000)\n');
    expect(estimate.stdout).toContain(`run it in full: mailvet run-estimate ${jobId}\n`);
    expect(() => readFileSync(path.join(dir, 'sampled_processed_by_mailvet.csv'))).toThrow();

    const full = await mailvet(['run-estimate', jobId!]);
    expect(full.code).toBe(0);
    expect(full.stdout).toMatch(/^job [0-9a-f-]{36}: completed, 4000 of 4000 emails$/m);
    expect(full.stdout).toMatch(/^ {2}safe +3000 +75\.0%$/m);
    expect(full.stdout).toContain('results: sampled_processed_by_mailvet.csv\n');
    expect(readFileSync(path.join(dir, 'sampled_processed_by_mailvet.csv'), 'utf8')).toMatch(
      /^email,mailvet_status\np0@nowhere.test,block_bounce_risk\np1@ok.test,safe\n/,
    );

    const again = await mailvet(['run-estimate', jobId!]);
    expect(again.code).toBe(1);
    expect(errors(again)).toMatch(/already run in full.*\(HTTP 409\)\n$/);
  });
});

describe('mailvet jobs, delete and usage', () => {
  it("lists the company's jobs newest first, deletes one, and shows this month's usage", async () => {
    writeFileSync(path.join(dir, 'listed.csv'), 'email\ncat@ok.test\n');
    const created = await mailvet(['validate-file', 'listed.csv']);
    expect(created.code).toBe(0);
    const jobId = /^job ([0-9a-f-]{36}):/m.exec(created.stdout)![1]!;

    const jobs = await mailvet(['jobs', '--status', 'completed', '--limit', '1']);
    expect(jobs.code).toBe(0);
    const [header, first] = jobs.stdout.split('\n');
    expect(header).toMatch(/^job +status +done +rows +created +file$/);
    expect(first).toMatch(new RegExp(`^${jobId} +completed +100% +1 +\\S+ +listed\\.csv$`));
    expect(jobs.stdout).toMatch(/^1 of \d+ jobs$/m);

    const json = JSON.parse((await mailvet(['jobs', '--json'])).stdout) as { jobs: { jobId: string }[] };
    expect(json.jobs[0]!.jobId).toBe(jobId);

    const badStatus = await mailvet(['jobs', '--status', 'nope']);
    expect(badStatus.code).toBe(1);
    expect(errors(badStatus)).toMatch(/^mailvet: .*status.* \(HTTP 400\)\n$/);

    const deleted = await mailvet(['delete', jobId]);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toBe(`deleted ${jobId}\n`);
    const gone = await mailvet(['job', jobId]);
    expect(gone.code).toBe(1);
    expect(errors(gone)).toBe('mailvet: Job not found (HTTP 404)\n');

    const usage = await mailvet(['usage']);
    expect(usage.code).toBe(0);
    expect(usage.stdout).toMatch(
      /^\d{4}-\d{2}: \d+ used \(\d+ single, \d+ bulk\) of a \d+ quota; \d+ credits left; \d+ validations remain\n$/,
    );
    const month = JSON.parse((await mailvet(['usage', '--month', '2020-01', '--json'])).stdout);
    expect(month).toMatchObject({ month: '2020-01', used: { bulk: 0, single: 0, total: 0 } });
    const badMonth = await mailvet(['usage', '--month', 'May']);
    expect(badMonth.code).toBe(1);
    expect(await mailvet(['jobs', 'extra'])).toMatchObject({ code: 2 });
  });
});

describe('the Node client', () => {
  it('validates a stream with validateFile and returns the results in memory', async () => {
    const csv = buildCsv({
      delimiter: ',',
      emailColumn: 1,
      rows: [
        ['Ann', 'ann@ok.test'],
        ['Abe', 'abuse@ok.test'],
      ],
    });
    const client = createNodeClient({ baseUrl: runtime.baseUrl, apiKey: runtime.keys.admin });
    const phases = new Set<string>();
    const done = await validateFile(
      Readable.from([csv.input.subarray(0, 5), csv.input.subarray(5)]),
      { client, emailColumn: 1, fileName: 'stream.csv', pollIntervalMs: 200 },
      (progress) => phases.add(progress.phase),
    );
    expect(done.job).toMatchObject({ status: 'completed', statistics: csv.statistics });
    expect(done.results!.equals(csv.expected)).toBe(true);
    expect([...phases]).toEqual(['upload', 'processing', 'download']);
  });
});

describe('the local runtime pages', () => {
  it('answers GET / with the web console (its sign-in page links the reference at /docs)', async () => {
    const response = await fetch(`${runtime.baseUrl}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toContain('<script type="module" src="app.js">');
    expect(await (await fetch(`${runtime.baseUrl}/app.js`)).text()).toContain('/docs');
  });

  it('serves the interactive reference at /docs with its assets and the document', async () => {
    const page = await (await fetch(`${runtime.baseUrl}/docs`)).text();
    const scripts = [...page.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).toEqual(
      expect.arrayContaining([
        '/docs/assets/swagger-ui.css',
        '/docs/assets/swagger-ui-bundle.js',
        '/docs/init.js',
      ]),
    );
    for (const asset of scripts) expect((await fetch(`${runtime.baseUrl}${asset}`)).status).toBe(200);
    expect(await (await fetch(`${runtime.baseUrl}/docs/init.js`)).text()).toContain(
      "url: '/docs/openapi.json'",
    );

    const served = (await (await fetch(`${runtime.baseUrl}/docs/openapi.json`)).json()) as Record<
      string,
      unknown
    >;
    const committed = JSON.parse(readFileSync(path.join(root, 'docs/openapi.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(served.paths).toEqual(committed.paths);
    expect(served.servers).toEqual([{ url: runtime.baseUrl, description: 'this local runtime' }]);
  });

  it('serves no other file of the package, and leaves other paths to the API', async () => {
    expect((await fetch(`${runtime.baseUrl}/docs/assets/package.json`)).status).toBe(404);
    const api = await fetch(`${runtime.baseUrl}/v1/nothing`);
    expect(api.status).toBe(404);
    expect(await api.text()).toBe('{"error":"Not found"}');
    expect((await fetch(`${runtime.baseUrl}/`, { method: 'POST' })).status).toBe(404);
  });
});
