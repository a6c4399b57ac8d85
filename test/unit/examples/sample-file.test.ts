// The sample file of the README's quick start gets, row by row, the verdicts the README's table shows:
// with working DNS (a fixture DNS answering as the real domains do) and without any DNS at all.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ValidationEngine, type ValidationResult } from '../../../functions/domain/validation';
import { startFixtureDns, type FixtureDns } from '../validation/fixtures/dns-server';
import { closedPort } from '../validation/fixtures/harness';

const root = path.resolve(__dirname, '../../..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const sample = readFileSync(path.join(root, 'docs/examples/leads.csv'), 'utf8');

/** The README's table: address, verdict with DNS, verdict without ("the same" repeats the first). */
function readmeRows(): { email: string; withDns: string; withoutDns: string }[] {
  const lines = readme.slice(readme.indexOf('| row ')).split('\n');
  const end = lines.findIndex((line) => !line.startsWith('|'));
  return lines
    .slice(2, end)
    .map((line) => line.split('|').map((cell) => cell.trim()))
    .map(([, email, withDns, withoutDns]) => ({
      email: email!.replace(/`/g, ''),
      withDns: withDns!,
      withoutDns: withoutDns === 'the same' ? withDns! : withoutDns!,
    }));
}

/** A verdict as the README writes it: status (`reason`), and the suggestion when there is one. */
function asWritten(result: ValidationResult): string {
  const { status, reason } = result.result;
  const suggestion = result.didYouMean ? `, did you mean \`${result.didYouMean}\`?` : '';
  return `${status} (\`${reason}\`)${suggestion}`;
}

// What the real domains publish, in short: an MX host with a public address.
const mx = (host: string, address: string) => ({
  [host]: { a: [address] },
});
const zones = {
  'gmail.com': { mx: [{ exchange: 'gmail-smtp-in.l.google.com', priority: 5 }] },
  ...mx('gmail-smtp-in.l.google.com', '142.250.102.27'),
  'microsoft.com': { mx: [{ exchange: 'microsoft-com.mail.protection.outlook.com', priority: 10 }] },
  ...mx('microsoft-com.mail.protection.outlook.com', '52.101.40.29'),
  'yahoo.com': { mx: [{ exchange: 'mta5.am0.yahoodns.net', priority: 1 }] },
  ...mx('mta5.am0.yahoodns.net', '67.195.204.72'),
  'mailinator.com': { mx: [{ exchange: 'mail.mailinator.com', priority: 10 }] },
  ...mx('mail.mailinator.com', '104.21.33.166'),
  // A typo-squatting domain that takes mail (were it gone, no_such_domain: block_bounce_risk all the same).
  'gmial.com': { mx: [{ exchange: 'mx.gmial.com', priority: 10 }] },
  ...mx('mx.gmial.com', '185.53.179.29'),
  'outlook.com': { mx: [{ exchange: 'outlook-com.olc.protection.outlook.com', priority: 5 }] },
  ...mx('outlook-com.olc.protection.outlook.com', '52.101.68.0'),
};

let dns: FixtureDns;
let online: ValidationEngine;
let offline: ValidationEngine;

beforeAll(async () => {
  dns = await startFixtureDns(zones);
  online = new ValidationEngine({ dnsServers: dns.servers, dnsTimeoutMs: 10_000, dnsTries: 1 });
  // Nothing listens there: every query fails at once, as on a machine without DNS.
  offline = new ValidationEngine({ dnsServers: [`127.0.0.1:${await closedPort()}`], dnsTries: 1 });
});
afterAll(() => dns.close());

describe('the README sample', () => {
  it('lists the rows of docs/examples/leads.csv, in order', () => {
    const emails = sample
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(',')[1]);
    expect(readmeRows().map((row) => row.email)).toEqual(emails);
  });

  it.each(readmeRows())('gives $email what the README says with working DNS', async (row) => {
    expect(asWritten(await online.validate(row.email))).toBe(row.withDns);
  });

  it.each(readmeRows())('gives $email what the README says without DNS', async (row) => {
    const result = await offline.validate(row.email);
    if (row.withoutDns.includes('dns_unavailable')) {
      // Only the domain check is inconclusive: the status is as written, the reason names the DNS failure.
      expect(result.result.status).toBe(row.withoutDns.split(' ')[0]);
      expect(result.result.reason).toMatch(/^dns_/);
    } else expect(asWritten(result)).toBe(row.withoutDns);
  });
});
