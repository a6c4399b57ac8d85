import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { readFirstRow, resolveColumn } from '../../../cli/csv-header';
import { defaultOutPath, main, statisticsTable, usageLine, verdictLine } from '../../../cli/main';
import { parseCommandLine, UsageError } from '../../../cli/usage';
import type { JobStatus, Usage, ValidationResult } from '../../../client';

describe('the command line', () => {
  const env = { MAILVET_API_KEY: 'env-key' };

  it('takes the URL and key from the environment, flags first', () => {
    expect(parseCommandLine(['validate', 'a@b.test'], env)).toMatchObject({
      command: 'validate',
      argument: 'a@b.test',
      url: 'http://localhost:3000',
      key: 'env-key',
      json: false,
      async: false,
    });
    expect(
      parseCommandLine(['validate', 'a@b.test', '--key', 'k', '--url', 'http://api.test'], {
        ...env,
        MAILVET_URL: 'http://other.test',
      }),
    ).toMatchObject({ url: 'http://api.test', key: 'k' });
    expect(
      parseCommandLine(
        ['validate-file', 'x.csv', '--column', 'Email', '--callback-url', 'https://h.test/x'],
        env,
      ),
    ).toMatchObject({ column: 'Email', callbackUrl: 'https://h.test/x' });
  });

  it('takes several addresses, or a --file list, for one batch call', () => {
    expect(parseCommandLine(['validate', 'a@b.test', 'c@d.test', 'e@f.test'], env)).toMatchObject({
      command: 'validate',
      emails: ['a@b.test', 'c@d.test', 'e@f.test'],
    });
    expect(parseCommandLine(['validate', '--file', 'list.txt', '--json'], env)).toMatchObject({
      command: 'validate',
      emails: [],
      file: 'list.txt',
      json: true,
    });
  });

  it('reads jobs and usage without an argument, with their own options', () => {
    expect(parseCommandLine(['jobs', '--status', 'completed', '--limit', '5'], env)).toMatchObject({
      command: 'jobs',
      status: 'completed',
      limit: '5',
    });
    expect(parseCommandLine(['usage', '--month', '2026-11', '--json'], env)).toMatchObject({
      command: 'usage',
      month: '2026-11',
      json: true,
    });
  });

  it.each([
    [[], 'no command given'],
    [['list'], 'unknown command "list"'],
    [['jobs', 'extra'], 'unexpected argument "extra"'],
    [['delete'], 'delete needs a job id'],
    [['usage', '--status', 'safe'], 'usage does not take --status'],
    [['validate'], 'validate needs an email address'],
    [['validate', 'a@b.test', 'c@d.test', '--async'], '--async takes one address'],
    [['validate', 'a@b.test', '--file', 'list.txt'], 'validate takes addresses or --file, not both'],
    [['validate', '--file', 'list.txt', '--async'], '--async takes one address'],
    [['download', 'id', '--column', '1'], 'download does not take --column'],
    [['validate', 'a@b.test', '--nope'], "Unknown option '--nope'"],
    [['validate', 'a@b.test', '--url', 'localhost:3000'], '--url must be an http(s) URL'],
  ])('refuses %j: %s', (argv, message) => {
    expect(() => parseCommandLine(argv, env)).toThrow(UsageError);
    expect(() => parseCommandLine(argv, env)).toThrow(message);
  });

  it('needs a key', () => {
    expect(() => parseCommandLine(['job', 'id'], {})).toThrow(
      'no API key: set MAILVET_API_KEY or pass --key',
    );
  });

  it('answers --help before anything else', () => {
    expect(parseCommandLine(['--help'], {})).toBe('help');
  });
});

describe('help', () => {
  it('is a command too: `mailvet help` prints the usage and exits 0', async () => {
    expect(parseCommandLine(['help'], {})).toBe('help');
    let out = '';
    const stdout = { write: (text: string) => (out += text) } as unknown as NodeJS.WriteStream;
    const code = await main(['help'], { stdout, stderr: stdout, env: {} });
    expect(code).toBe(0);
    expect(out).toContain('mailvet validate-file <file.csv>');
    expect(out).toContain('mailvet help');
  });
});

describe('the email column', () => {
  it('is an index as given, a header name in any case, or the column headed email', () => {
    const header = ['Name', ' E-Mail ', 'Company'];
    expect(resolveColumn('2', header)).toBe(2);
    expect(resolveColumn('company', header)).toBe(2);
    expect(resolveColumn(undefined, header)).toBe(1);
    expect(resolveColumn(undefined, ['id', 'Email Address'])).toBe(1);
  });

  it('names the columns it saw when none fits', () => {
    expect(() => resolveColumn(undefined, ['name', 'address'])).toThrow(
      'no "email" column in the first row ("name", "address")',
    );
    expect(() => resolveColumn('mail', ['name'])).toThrow('no column named "mail" in the header ("name")');
  });

  it('reads the first row with its delimiter, quotes and BOM', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-cli-unit-'));
    try {
      const file = path.join(dir, 'x.csv');
      writeFileSync(file, '\ufeff"Last; First";email;note\r\n"Doe; J";j@d.test;x\r\n');
      expect(await readFirstRow(file)).toEqual(['Last; First', 'email', 'note']);
      writeFileSync(file, 'id|name|e-mail\n1|a|a@b.test\n');
      expect(await readFirstRow(file)).toEqual(['id', 'name', 'e-mail']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the output', () => {
  it('puts the results beside the input', () => {
    expect(defaultOutPath('leads.csv')).toBe('leads_processed_by_mailvet.csv');
    expect(defaultOutPath('/data/Leads.CSV')).toBe('/data/Leads_processed_by_mailvet.csv');
    expect(defaultOutPath('data/list.txt')).toBe('data/list.txt_processed_by_mailvet.csv');
  });

  it('prints a verdict with its reason and suggestion', () => {
    const result = {
      email: 'jane@gmial.com',
      didYouMean: 'jane@gmail.com',
      result: { status: 'some_risk', reason: 'typo_suggestion', subStatus: null },
    } as unknown as ValidationResult;
    expect(verdictLine(result)).toBe(
      'jane@gmial.com: some_risk (typo_suggestion), did you mean jane@gmail.com?',
    );
  });

  it('tells the usage of a month that has ended in the past tense', () => {
    const october: Usage = {
      month: '2026-10',
      periodStart: '2026-10-01T00:00:00.000Z',
      periodEnd: '2026-11-01T00:00:00.000Z',
      quota: 1000,
      creditsRemaining: 20,
      remaining: 1020,
      used: { bulk: 3, single: 2, total: 5 },
    };
    expect(usageLine(october, new Date('2026-12-05T10:00:00Z'))).toBe(
      '2026-10: 5 validations were used (2 single, 3 bulk) of a 1000 quota',
    );
    expect(usageLine(october, new Date('2026-10-20T10:00:00Z'))).toBe(
      '2026-10: 5 used (2 single, 3 bulk) of a 1000 quota; 20 credits left; 1020 validations remain',
    );
  });

  it('prints statistics as a table with shares', () => {
    const job = {
      jobId: 'j1',
      status: 'completed',
      totalEmails: 8,
      processedEmails: 8,
      statistics: { block_bounce_risk: 2, dead_email: 0, do_not_mail_abuse: 0, safe: 6, some_risk: 0 },
    } as unknown as JobStatus;
    expect(statisticsTable(job)).toBe(
      [
        'job j1: completed, 8 of 8 emails',
        '  status             count   share',
        '  block_bounce_risk      2   25.0%',
        '  dead_email             0    0.0%',
        '  do_not_mail_abuse      0    0.0%',
        '  safe                   6   75.0%',
        '  some_risk              0    0.0%',
        '',
      ].join('\n'),
    );
    expect(statisticsTable({ ...job, duplicateEmails: 3 })).toContain(
      "\n  3 of them repeat an earlier row's address: its status, not counted in usage\n",
    );
  });
});

describe('an API the CLI cannot reach', () => {
  it('says which address and suggests starting it, exit 1', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    let stdout = '';
    let stderr = '';
    const code = await main(['validate', 'a@b.test', '--url', `http://127.0.0.1:${port}`], {
      stdout: { write: (text: string) => (stdout += text) } as unknown as NodeJS.WriteStream,
      stderr: { write: (text: string) => (stderr += text) } as unknown as NodeJS.WriteStream,
      env: { MAILVET_API_KEY: 'k' },
    });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `mailvet: cannot reach http://127.0.0.1:${port} (ECONNREFUSED); is the API running (npm start)?\n`,
    );
  });
});
