// Job management over HTTP on the local runtime: the job list, DELETE (with cancellation of an active
// job), filtered and reason-column downloads, Idempotency-Key on both POSTs and the webhook delivery
// log, with the other company's 404s. Every response is checked against docs/openapi.json.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { documentedCall, useBulkRuntime, type Json } from './bulk-runtime';
import { until } from '../helpers/until';

jest.setTimeout(180_000);

const bulk = useBulkRuntime({
  env: { RATE_LIMIT_PER_SECOND: '100000', WEBHOOK_RETRY_BASE_SECONDS: '1' },
});

const call = documentedCall(bulk);

const csv = [
  'name,email',
  'Ann,ann@ok.test',
  'Bob,bob@nowhere.test',
  '',
  'Cy,abuse@ok.test',
  'Dee,"info@ok.test"',
  'Eve,eve@slow.test',
  'Fay,',
  'Gus,gus@ok.test',
].join('\r\n');

async function completedJob(body: Record<string, unknown> = { emailColumn: 1, fileName: 'people.csv' }) {
  const result = await bulk.client.run(Buffer.from(`${csv}\r\n`), body);
  expect(result.final.status).toBe('completed');
  return result;
}

async function downloadFile(path: string): Promise<{ descriptor: Json; text: string }> {
  const res = await call('GET', path);
  expect(res.status).toBe(200);
  const file = await fetch(res.body.downloadUrl);
  expect(file.status).toBe(200);
  return { descriptor: res.body, text: await file.text() };
}

describe('GET /v1/email/validate-file', () => {
  it('lists the company’s jobs newest first, pages and filters them, and shows no other company’s', async () => {
    const done = await completedJob();
    const waiting: string[] = [];
    for (const fileName of ['a.csv', 'b.csv']) {
      const created = await call('POST', '/v1/email/validate-file', { body: { emailColumn: 0, fileName } });
      expect(created.status).toBe(202);
      waiting.push(created.body.jobId);
    }
    const all = await call('GET', '/v1/email/validate-file?limit=1000');
    expect(all.status).toBe(200);
    const ids = all.body.jobs.map((j: Json) => j.jobId);
    // Newest first: b, a, then the completed one.
    expect(ids.indexOf(waiting[1])).toBeLessThan(ids.indexOf(waiting[0]));
    expect(ids.indexOf(waiting[0])).toBeLessThan(ids.indexOf(done.jobId));
    expect(all.body.total).toBe(all.body.jobs.length);
    const createdAts = all.body.jobs.map((j: Json) => j.createdAt);
    expect([...createdAts].sort().reverse()).toEqual(createdAts);
    const listed = all.body.jobs.find((j: Json) => j.jobId === done.jobId);
    expect(listed).toEqual({ ...done.final, fileName: 'people.csv' });

    const page = await call('GET', '/v1/email/validate-file?limit=1&offset=1');
    expect(page.body).toMatchObject({ limit: 1, offset: 1, total: all.body.total });
    expect(page.body.jobs.map((j: Json) => j.jobId)).toEqual([ids[1]]);

    const completed = await call('GET', '/v1/email/validate-file?status=completed');
    expect(completed.body.jobs.length).toBeGreaterThan(0);
    expect(completed.body.jobs.every((j: Json) => j.status === 'completed')).toBe(true);
    expect(completed.body.total).toBe(completed.body.jobs.length);
    const awaiting = await call('GET', '/v1/email/validate-file?status=awaiting_upload');
    expect(awaiting.body.jobs.map((j: Json) => j.jobId)).toEqual(expect.arrayContaining(waiting));

    expect((await call('GET', '/v1/email/validate-file?status=done')).body).toEqual({
      error: 'status must be one of awaiting_upload, processing, completed, failed, expired',
    });
    const other = await call('GET', '/v1/email/validate-file', { key: bulk.runtime.keys.other });
    expect(other.body.jobs.map((j: Json) => j.jobId)).not.toContain(done.jobId);

    for (const jobId of waiting)
      expect((await call('DELETE', `/v1/email/validate-file/${jobId}`)).status).toBe(204);
  });
});

describe('download filters and the reason column', () => {
  it('keeps the header, empty lines and the kept rows byte for byte; adds mailvet_reason; caches each filter set', async () => {
    const { jobId } = await completedJob();
    const base = `/v1/email/validate-file/${jobId}/download`;
    const full = (await downloadFile(base)).text.split('\r\n');
    expect(full[0]).toBe('name,email,mailvet_status');

    const safe = await downloadFile(`${base}?status=safe`);
    expect(safe.text).toBe(
      ['name,email,mailvet_status', 'Ann,ann@ok.test,safe', '', 'Gus,gus@ok.test,safe', ''].join('\r\n'),
    );
    expect(safe.descriptor.fileName).toBe('people_processed_by_mailvet.safe.csv');

    // Named in any order, the same set is the same copy.
    const two = await downloadFile(`${base}?status=some_risk,do_not_mail_abuse`);
    const twoAgain = await call('GET', `${base}?status=do_not_mail_abuse,some_risk`);
    expect(new URL(twoAgain.body.downloadUrl).pathname).toBe(new URL(two.descriptor.downloadUrl).pathname);
    expect(two.text).toBe(
      [
        'name,email,mailvet_status',
        '',
        'Cy,abuse@ok.test,do_not_mail_abuse',
        'Dee,"info@ok.test",some_risk',
        'Eve,eve@slow.test,some_risk',
        '',
      ].join('\r\n'),
    );
    // Made once: the cached copy is not rewritten by the second request.
    const head1 = await fetch(two.descriptor.downloadUrl);
    const head2 = await fetch(twoAgain.body.downloadUrl);
    expect(head2.headers.get('last-modified')).toBe(head1.headers.get('last-modified'));
    expect(head2.headers.get('etag')).toBe(head1.headers.get('etag'));

    const reasons = await downloadFile(`${base}?columns=status,reason`);
    const lines = reasons.text.split('\r\n');
    expect(lines[0]).toBe('name,email,mailvet_status,mailvet_reason');
    expect(lines).toHaveLength(full.length);
    lines.forEach((line, n) => {
      if (full[n] === '') expect(line).toBe('');
      else expect(line.startsWith(`${full[n]},`)).toBe(true);
    });
    expect(lines[1]).toMatch(/^Ann,ann@ok\.test,safe,[a-z_]+$/);
    expect(lines[2]).toBe('Bob,bob@nowhere.test,block_bounce_risk,no_such_domain');
    expect(lines[7]).toBe('Fay,,block_bounce_risk,blank');

    const both = await downloadFile(`${base}?status=block_bounce_risk&columns=reason,status`);
    expect(both.text).toBe(
      [
        'name,email,mailvet_status,mailvet_reason',
        'Bob,bob@nowhere.test,block_bounce_risk,no_such_domain',
        '',
        'Fay,,block_bounce_risk,blank',
        '',
      ].join('\r\n'),
    );

    expect((await call('GET', `${base}?status=safe,great`)).body).toEqual({
      error:
        'status must be a comma-separated list of safe, block_bounce_risk, some_risk, dead_email, do_not_mail_abuse',
    });
    expect((await call('GET', `${base}?columns=status,score`)).status).toBe(400);
    expect((await call('GET', `${base}?status=safe`, { key: bulk.runtime.keys.other })).status).toBe(404);
  });
});

describe('Idempotency-Key', () => {
  it('replays the first job creation for the same key and body, 422 for another body', async () => {
    const key = { 'idempotency-key': `create-${Date.now()}` };
    const before = (await call('GET', '/v1/email/validate-file')).body.total;
    const first = await call('POST', '/v1/email/validate-file', {
      body: { emailColumn: 0, fileName: 'once.csv' },
      headers: key,
    });
    expect(first.status).toBe(202);
    const again = await call('POST', '/v1/email/validate-file', {
      body: { fileName: 'once.csv', emailColumn: 0 },
      headers: key,
    });
    expect(again).toEqual(first);
    expect((await call('GET', '/v1/email/validate-file')).body.total).toBe(before + 1);
    // Five jobs may be active: four more fit, so the replay took no slot.
    const more: string[] = [];
    for (let n = 0; n < 4; n++) {
      const created = await call('POST', '/v1/email/validate-file', { body: { emailColumn: 0 } });
      expect(created.status).toBe(202);
      more.push(created.body.jobId);
    }
    expect(
      (
        await call('POST', '/v1/email/validate-file', {
          body: { emailColumn: 0, fileName: 'once.csv' },
          headers: key,
        })
      ).body.jobId,
    ).toBe(first.body.jobId);
    const changed = await call('POST', '/v1/email/validate-file', {
      body: { emailColumn: 1, fileName: 'once.csv' },
      headers: key,
    });
    expect(changed).toEqual({ status: 422, body: { error: 'Idempotency-Key reused with a different body' } });
    // Another company's identical key is its own.
    const other = await call('POST', '/v1/email/validate-file', {
      key: bulk.runtime.keys.other,
      body: { emailColumn: 0, fileName: 'once.csv' },
      headers: key,
    });
    expect(other.status).toBe(202);
    expect(other.body.jobId).not.toBe(first.body.jobId);
    expect(
      (
        await call('POST', '/v1/email/validate-file', {
          body: { emailColumn: 0 },
          headers: { 'idempotency-key': '' },
        })
      ).status,
    ).toBe(400);
    for (const jobId of [first.body.jobId, ...more])
      expect((await call('DELETE', `/v1/email/validate-file/${jobId}`)).status).toBe(204);
    expect(
      (await call('DELETE', `/v1/email/validate-file/${other.body.jobId}`, { key: bulk.runtime.keys.other }))
        .status,
    ).toBe(204);
  });

  it('replays the first async validation (same requestId)', async () => {
    const key = { 'idempotency-key': `async-${Date.now()}` };
    const first = await call('POST', '/v1/email/validate-async', {
      body: { email: 'ann@ok.test' },
      headers: key,
    });
    expect(first.status).toBe(202);
    const again = await call('POST', '/v1/email/validate-async', {
      body: { email: 'ann@ok.test' },
      headers: key,
    });
    expect(again.body.requestId).toBe(first.body.requestId);
    expect(
      (await call('POST', '/v1/email/validate-async', { body: { email: 'bob@ok.test' }, headers: key }))
        .status,
    ).toBe(422);
  });
});

describe('GET /v1/email/validate-file/{jobId}/webhook-deliveries', () => {
  it('shows each attempt with its status, duration and next retry time', async () => {
    let calls = 0;
    const receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(++calls === 1 ? 503 : 200).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const port = (receiver.address() as AddressInfo).port;
      const { jobId } = await completedJob({ emailColumn: 1, callbackUrl: `http://127.0.0.1:${port}/hook` });
      const path = `/v1/email/validate-file/${jobId}/webhook-deliveries`;
      const log = await until('two attempts', async () => {
        const res = await call('GET', path);
        return res.body.deliveries.length >= 2 ? res.body : undefined;
      });
      expect(log.jobId).toBe(jobId);
      expect(log.webhookStatus).toBe('delivered');
      const [first, second] = log.deliveries;
      expect(first).toMatchObject({ attempt: 1, outcome: 'retry', statusCode: 503, error: 'HTTP 503' });
      expect(Date.parse(first.nextRetryAt)).toBeGreaterThan(Date.parse(first.at));
      expect(first.durationMs).toBeGreaterThanOrEqual(0);
      expect(second).toMatchObject({
        attempt: 2,
        outcome: 'delivered',
        statusCode: 200,
        error: null,
        nextRetryAt: null,
      });
      expect((await call('GET', path, { key: bulk.runtime.keys.other })).status).toBe(404);
    } finally {
      receiver.closeAllConnections();
      receiver.close();
    }
  });
});

describe('DELETE /v1/email/validate-file/{jobId}', () => {
  it('deletes a completed job and its files; 404 afterwards and for another company', async () => {
    const { jobId, descriptor } = await completedJob();
    const path = `/v1/email/validate-file/${jobId}`;
    expect((await call('DELETE', path, { key: bulk.runtime.keys.other })).status).toBe(404);
    expect((await call('DELETE', path)).status).toBe(204);
    expect((await call('GET', path)).status).toBe(404);
    expect((await call('GET', `${path}/download`)).status).toBe(404);
    expect((await call('GET', `${path}/webhook-deliveries`)).status).toBe(404);
    expect((await call('DELETE', path)).status).toBe(404);
    // The results object is gone: its old link no longer serves the file.
    expect((await fetch(descriptor!.downloadUrl as string)).status).toBe(404);
    const listed = await call('GET', '/v1/email/validate-file?limit=1000');
    expect(listed.body.jobs.map((j: Json) => j.jobId)).not.toContain(jobId);
  });

  it('cancels an active job: its chunks stop counting, its slot is free, it stays gone', async () => {
    const rows = ['email'];
    for (let n = 0; n < 3000; n++) rows.push(`user${n}@ok.test`);
    const created = await bulk.client.create({ emailColumn: 0 });
    expect((await bulk.client.upload(created.uploadUrl, Buffer.from(rows.join('\n')))).status).toBe(200);
    const path = `/v1/email/validate-file/${created.jobId}`;
    await until('processing', async () => {
      const res = await call('GET', path);
      return res.body.status === 'processing' ? res : undefined;
    });
    expect((await call('DELETE', path)).status).toBe(204);
    // Chunks still queued or in flight must not bring the job back (or complete it).
    for (let n = 0; n < 20; n++) {
      expect((await call('GET', path)).status).toBe(404);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Its slot is free: five new jobs fit.
    const fresh: string[] = [];
    for (let n = 0; n < 5; n++) {
      const res = await call('POST', '/v1/email/validate-file', { body: { emailColumn: 0 } });
      expect(res.status).toBe(202);
      fresh.push(res.body.jobId);
    }
    for (const jobId of fresh)
      expect((await call('DELETE', `/v1/email/validate-file/${jobId}`)).status).toBe(204);
  });
});
