// A notification email through the local runtime: sendEmail writes the outbox record (its kind kept),
// queues it on the invites queue, and the sendInvite consumer writes `<kind>-<id>.eml` under
// DATA_DIR/outbox and marks the record sent (the text is then dropped from it). The same id sends once;
// bad input is refused before anything is stored; no log line carries the address, subject or text.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sendEmail } from '../../functions/domain/mail/send-email';
import { ValidationError } from '../../functions/errors';
import { inviteEmailKey } from '../../functions/store/keys';
import { useTestRuntime } from '../helpers/local-runtime';
import { readRawItem } from '../helpers/raw-items';
import { until } from '../helpers/until';

const local = useTestRuntime({ LOG_LEVEL: 'debug' });
const lines: string[] = [];
let restore: (() => void) | undefined;

beforeAll(() => {
  // Every line the runtime's functions write, as they reach the process's output.
  const capture = (chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  };
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(capture);
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(capture);
  restore = () => {
    stdout.mockRestore();
    stderr.mockRestore();
  };
});
afterAll(() => restore?.());

const companyId = () => local().ids.acme;
const outbox = () => path.join(local().dataDir, 'outbox');
const emlFile = (name: string) =>
  until(`the email ${name}`, async () => (existsSync(path.join(outbox(), name)) ? name : undefined), 20_000);
const secretText = 'Use code 550-731-RESETCODE within the hour.';
const subject = 'Reset your mailvet password';

test('a password reset email ends as password_reset-<id>.eml, and its record as sent, with its kind', async () => {
  const { id } = await sendEmail({
    companyId: companyId(),
    kind: 'password_reset',
    to: 'ada.admin@acme.example',
    subject,
    text: `Hello Ada,\n\n${secretText}\n`,
  });
  const file = await emlFile(`password_reset-${id}.eml`);
  const eml = readFileSync(path.join(outbox(), file), 'utf8');
  expect(eml).toContain('\r\nTo: ada.admin@acme.example\r\n');
  expect(eml).toContain(`\r\nSubject: ${subject}\r\n`);
  expect(eml).toContain(`\r\n\r\nHello Ada,\r\n\r\n${secretText}\r\n`);
  const record = await until('the record marked sent', async () => {
    const item = await readRawItem(inviteEmailKey(companyId(), id));
    return item?.status === 'sent' ? item : undefined;
  });
  expect(record).toMatchObject({ kind: 'password_reset', to: 'ada.admin@acme.example', status: 'sent' });
  // delivered: the text is no longer kept
  expect(record.text).toBeUndefined();
});

test('the same id sends one email, and a second call after it went out queues nothing new', async () => {
  const message = {
    companyId: companyId(),
    kind: 'safety_net_prevention' as const,
    to: 'sam.sales@acme.example',
    subject: 'Safety Net paused a sequence step',
    text: 'Two prospects were held back.',
    id: 'sn-prevention-0001',
  };
  await expect(sendEmail(message)).resolves.toEqual({ id: 'sn-prevention-0001' });
  await expect(sendEmail(message)).resolves.toEqual({ id: 'sn-prevention-0001' });
  await emlFile('safety_net_prevention-sn-prevention-0001.eml');
  await until('the record marked sent', async () =>
    (await readRawItem(inviteEmailKey(companyId(), message.id)))?.status === 'sent' ? true : undefined,
  );
  await expect(sendEmail(message)).resolves.toEqual({ id: 'sn-prevention-0001' });
  expect(readdirSync(outbox()).filter((f) => f.includes('sn-prevention-0001'))).toEqual([
    'safety_net_prevention-sn-prevention-0001.eml',
  ]);
  // one id is one email: not another recipient's
  await expect(sendEmail({ ...message, to: 'someone.else@acme.example' })).rejects.toThrow(
    /another kind or recipient/,
  );
});

test('refuses a bad message before storing anything, naming the field but not its value', async () => {
  const good = {
    companyId: companyId(),
    kind: 'password_reset' as const,
    to: 'ada.admin@acme.example',
    subject,
    text: 'x',
  };
  for (const [bad, field] of [
    [{ ...good, to: 'not-an-address' }, 'to'],
    [{ ...good, subject: 'Hi\r\nBcc: victim@evil.example' }, 'subject'],
    [{ ...good, subject: '' }, 'subject'],
    [{ ...good, kind: 'newsletter' as never }, 'kind'],
    [{ ...good, id: 'has spaces' }, 'id'],
  ] as const) {
    const error = await sendEmail(bad).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain(field);
    expect((error as Error).message).not.toMatch(/victim|not-an-address|has spaces/);
  }
});

test('no log line carries an address, a subject or a text (read from the real output)', () => {
  const json = lines.filter((line) => line.startsWith('{'));
  expect(json.some((line) => line.includes('password_reset email sent'))).toBe(true);
  for (const line of json) {
    expect(line).not.toContain('RESETCODE');
    expect(line).not.toContain(subject);
    expect(line).not.toContain('Two prospects were held back');
    expect(line).not.toMatch(/[^\s"<]+@[^\s">]+\.example/);
  }
});
