// The three ways an address reaches a mailbox probe, through a local runtime's API: the sync endpoint,
// the batch endpoint and a bulk job. Each returns the verdict per address (lower-cased).
import type { TestRuntime } from '../local-runtime';

export interface PathVerdict {
  status: string;
  reason?: string;
  smtpProbe?: string;
}

const headers = (local: TestRuntime) => ({
  'x-api-key': local.keys.admin,
  'content-type': 'application/json',
});

interface SingleBody {
  email: string;
  result: { status: string; reason: string };
  mailbox: { smtpProbe: string };
}

const verdictOf = (b: SingleBody): PathVerdict => ({
  status: b.result.status,
  reason: b.result.reason,
  smtpProbe: b.mailbox.smtpProbe,
});

/** POST /v1/email/validate for each address, `concurrency` calls at once. */
export async function viaSync(
  local: TestRuntime,
  emails: readonly string[],
  concurrency = 1,
): Promise<Map<string, PathVerdict>> {
  const out = new Map<string, PathVerdict>();
  const queue = [...emails];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let email = queue.shift(); email !== undefined; email = queue.shift()) {
        const res = await fetch(`${local.baseUrl}/v1/email/validate`, {
          method: 'POST',
          headers: headers(local),
          body: JSON.stringify({ email }),
        });
        if (res.status !== 200) throw new Error(`validate ${email}: ${res.status} ${await res.text()}`);
        out.set(email.toLowerCase(), verdictOf((await res.json()) as SingleBody));
      }
    }),
  );
  return out;
}

/** POST /v1/email/validate-batch with every address; a pending one fails the call. */
export async function viaBatch(
  local: TestRuntime,
  emails: readonly string[],
): Promise<Map<string, PathVerdict>> {
  const res = await fetch(`${local.baseUrl}/v1/email/validate-batch`, {
    method: 'POST',
    headers: headers(local),
    body: JSON.stringify({ emails }),
  });
  if (res.status !== 200) throw new Error(`validate-batch: ${res.status} ${await res.text()}`);
  const { results } = (await res.json()) as { results: (SingleBody | { email: string; pollUrl: string })[] };
  const out = new Map<string, PathVerdict>();
  for (const r of results) {
    if (!('result' in r)) throw new Error(`validate-batch left ${r.email} pending`);
    out.set(r.email.toLowerCase(), verdictOf(r));
  }
  return out;
}

/** A bulk job of a one-column CSV; the status column of its results. */
export async function viaBulk(
  local: TestRuntime,
  emails: readonly string[],
  timeoutMs = 120_000,
): Promise<Map<string, PathVerdict>> {
  const created = (await (
    await fetch(`${local.baseUrl}/v1/email/validate-file`, {
      method: 'POST',
      headers: headers(local),
      body: JSON.stringify({ emailColumn: 0 }),
    })
  ).json()) as { jobId: string; uploadUrl: string };
  const put = await fetch(created.uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': 'text/csv' },
    body: `email\n${emails.join('\n')}\n`,
  });
  if (put.status !== 200) throw new Error(`PUT ${put.status}`);
  const deadline = Date.now() + timeoutMs;
  let job: { status: string };
  for (;;) {
    const res = await fetch(`${local.baseUrl}/v1/email/validate-file/${created.jobId}`, {
      headers: headers(local),
    });
    job = (await res.json()) as { status: string };
    if (job.status !== 'processing' && job.status !== 'awaiting_upload') break;
    if (Date.now() > deadline) throw new Error(`bulk job still ${job.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  if (job.status !== 'completed') throw new Error(`bulk job ended ${JSON.stringify(job)}`);
  const { downloadUrl } = (await (
    await fetch(`${local.baseUrl}/v1/email/validate-file/${created.jobId}/download`, {
      headers: headers(local),
    })
  ).json()) as { downloadUrl: string };
  const lines = (await (await fetch(downloadUrl)).text()).trim().split('\n');
  const out = new Map<string, PathVerdict>();
  for (const line of lines.slice(1)) {
    const [email = '', status = ''] = line.split(',');
    out.set(email.toLowerCase(), { status });
  }
  return out;
}

/** The addresses whose status is not the expected one, as "address: got (want)". */
export function wrongVerdicts(
  got: ReadonlyMap<string, PathVerdict>,
  want: Readonly<Record<string, string>>,
): string[] {
  return Object.entries(want)
    .filter(([email, status]) => got.get(email)?.status !== status)
    .map(([email, status]) => {
      const g = got.get(email);
      return `${email}: ${g ? `${g.status}/${g.reason ?? ''}/${g.smtpProbe ?? ''}` : 'missing'} (want ${status})`;
    });
}
