// Duplicate rows through the public API: a file whose addresses repeat (other case, display name,
// spaces) across chunk boundaries, with test addresses and fixture-DNS domains so every status is known.
import { createMailvetClient } from '../../client';
import { onboardCompany, parseOnboardingInput } from '../../functions/domain/accounts/onboarding';
import { fixtureDnsSettings, startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import type { FixtureDns } from '../unit/validation/fixtures/dns-server';
import { BulkClient, startBulkDns } from './bulk-client';

jest.setTimeout(120_000);

let dns: FixtureDns;
let local: TestRuntime;

beforeAll(async () => {
  dns = await startBulkDns();
  // 64-byte chunks: nearly every row is a chunk of its own, so duplicates sit in other chunks than
  // their first occurrence
  local = await startTestRuntime({ ...fixtureDnsSettings(dns), CHUNK_SIZE_BYTES: '64' });
});

afterAll(async () => {
  await local?.stop();
  await dns?.close();
});

/** [row, expected status, duplicate of an earlier row] */
const ROWS: [string, string, boolean][] = [
  ['Ann,ann@ok.test', 'safe', false],
  ['Bob,bounce@mailvet.test', 'block_bounce_risk', false],
  ['Cid,full@mailvet.test', 'some_risk', false],
  ['Ann again,ANN@OK.TEST', 'safe', true],
  ['Dee,dee@ok.test', 'safe', false],
  ['Bob again,"Bob <Bounce@MailVet.test>"', 'block_bounce_risk', true],
  ['Eve,abuse@mailvet.test', 'do_not_mail_abuse', false],
  ['Ann third,  ann@ok.test  ', 'safe', true],
  ['Dee again,dee@OK.test', 'safe', true],
  ['Fay,', 'block_bounce_risk', false],
  ['Gus,', 'block_bounce_risk', false],
  ['Hal,nobody@nowhere.test', 'block_bounce_risk', false],
  ['Hal again,NOBODY@nowhere.test', 'block_bounce_risk', true],
];
const CSV = `name,email\n${ROWS.map(([row]) => row).join('\n')}\n`;
const DUPLICATES = ROWS.filter(([, , duplicate]) => duplicate).length;

/** The status column of each data row of a results file. */
function statusesOf(file: Buffer): string[] {
  return file
    .toString('utf8')
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((line) => line.slice(line.lastIndexOf(',') + 1));
}

describe('duplicate rows', () => {
  let bulk: BulkClient;
  let jobId: string;
  let usedBulk: number;

  beforeAll(async () => {
    // Nine validations: the file's 13 rows less its 4 duplicates of real addresses (test addresses are
    // never counted in the end, but the reservation does not know them yet). Without leaving duplicates
    // out of the reservation this job would fail for quota.
    const n = Math.random().toString(36).slice(2, 8);
    const company = await onboardCompany(
      parseOnboardingInput({ name: `Dup ${n}`, adminEmail: `ops@${n}.example`, monthlyQuota: 9 }),
    );
    bulk = new BulkClient(local.baseUrl, company.apiKey);
    const run = await bulk.run(Buffer.from(CSV), { emailColumn: 1, fileName: 'dups.csv' });
    expect(run.final.error).toBeUndefined();
    expect(run.final.status).toBe('completed');
    jobId = run.jobId;
    usedBulk = (await createMailvetClient({ baseUrl: local.baseUrl, apiKey: company.apiKey }).getUsage()).used
      .bulk;
    expect(statusesOf(run.file!)).toEqual(ROWS.map(([, status]) => status));
  });

  it('each get their first occurrence status, count in totalEmails and statistics, and are reported', async () => {
    const job = await bulk.status(jobId);
    expect(job).toMatchObject({ totalEmails: ROWS.length, duplicateEmails: DUPLICATES });
    expect(job.statistics).toEqual({
      safe: 5,
      block_bounce_risk: 6,
      some_risk: 1,
      dead_email: 0,
      do_not_mail_abuse: 1,
    });
    const list = (await (await bulk.request('GET', '/v1/email/validate-file')).json()) as {
      jobs: { jobId: string; duplicateEmails: number }[];
    };
    expect(list.jobs.find((listed) => listed.jobId === jobId)?.duplicateEmails).toBe(DUPLICATES);
  });

  it('are not counted in usage: only the first occurrences of real addresses are', () => {
    // ann, dee, the two blank rows and nobody; test addresses never count
    expect(usedBulk).toBe(5);
  });

  it('are left out by ?unique=true, alone or with ?status= and ?columns=', async () => {
    const client = createMailvetClient({ baseUrl: local.baseUrl, apiKey: bulk.apiKey });
    const fetchText = async (filter: Parameters<typeof client.getDownload>[1]) => {
      const descriptor = await client.getDownload(jobId, filter);
      return {
        name: descriptor.fileName,
        text: await (await client.fetchResults(descriptor.downloadUrl)).text(),
      };
    };
    const unique = await fetchText({ unique: true });
    expect(unique.name).toBe('dups_processed_by_mailvet.unique.csv');
    const firstRows = ROWS.filter(([, , duplicate]) => !duplicate).map(([row, status]) => `${row},${status}`);
    expect(unique.text).toBe(`name,email,mailvet_status\n${firstRows.join('\n')}\n`);

    const safeWithReason = await fetchText({ unique: true, status: ['safe'], columns: ['status', 'reason'] });
    expect(safeWithReason.text.trimEnd().split('\n')).toEqual([
      'name,email,mailvet_status,mailvet_reason',
      expect.stringMatching(/^Ann,ann@ok\.test,safe,\w+$/),
      expect.stringMatching(/^Dee,dee@ok\.test,safe,\w+$/),
    ]);
    // without unique the duplicates are there
    expect((await fetchText({ status: ['safe'] })).text.trimEnd().split('\n')).toHaveLength(6);
  });

  it('answers 400 to a unique value other than true or false', async () => {
    const answer = await bulk.request('GET', `/v1/email/validate-file/${jobId}/download?unique=yes`);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({ error: 'unique must be true or false' });
  });
});
