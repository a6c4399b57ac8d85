// The mail rig itself, driven by plain IMAP and SMTP clients (imapflow, nodemailer): real Postfix,
// Dovecot, rspamd and NSD decide the folder, refuse wrong passwords and take a changed one.
import { execFile, spawn } from 'node:child_process';
import { Resolver } from 'node:dns/promises';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ImapFlow } from 'imapflow';
import { createTransport } from 'nodemailer';
import { startMailRig, type MailEndpoint, type MailRig } from '../../helpers/real-servers/mail-rig';

const execFileAsync = promisify(execFile);

const alice = { email: 'alice@good.example', password: 'alice-first-pass' };
const carol = { email: 'carol@good.example', password: 'carol-pass' };
const bob = { email: 'bob@spammy.example', password: 'bob-pass' };

function submit(endpoint: MailEndpoint, user: string, pass: string, trustRigCa = true) {
  return createTransport({
    host: endpoint.host,
    port: endpoint.port,
    secure: endpoint.security === 'tls',
    requireTLS: endpoint.security === 'starttls',
    auth: { user, pass },
    tls: trustRigCa ? { ca: endpoint.ca } : {},
    connectionTimeout: 5000,
  });
}

function imapClient(endpoint: MailEndpoint, user: string, pass: string) {
  return new ImapFlow({
    host: endpoint.host,
    port: endpoint.port,
    secure: endpoint.security === 'tls',
    doSTARTTLS: endpoint.security === 'starttls' ? true : undefined,
    auth: { user, pass },
    tls: { ca: endpoint.ca },
    logger: false,
  });
}

/** Message-IDs in `folder` of a mailbox, read over IMAP. */
async function messageIds(
  endpoint: MailEndpoint,
  user: string,
  pass: string,
  folder: string,
): Promise<string[]> {
  const client = imapClient(endpoint, user, pass);
  await client.connect();
  try {
    const lock = await client.getMailboxLock(folder);
    try {
      const ids: string[] = [];
      for await (const message of client.fetch('1:*', { envelope: true })) {
        if (message.envelope?.messageId) ids.push(message.envelope.messageId.replace(/^<|>$/g, ''));
      }
      return ids;
    } finally {
      lock.release();
    }
  } finally {
    await client.logout();
  }
}

async function loginError(endpoint: MailEndpoint, user: string, pass: string): Promise<string> {
  const client = imapClient(endpoint, user, pass);
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.logout();
    return 'logged in';
  } catch (error) {
    const e = error as { authenticationFailed?: boolean; responseText?: string; message: string };
    return e.authenticationFailed ? `auth failed: ${e.responseText ?? e.message}` : `other: ${e.message}`;
  }
}

async function smtpError(endpoint: MailEndpoint, user: string, pass: string): Promise<string> {
  try {
    await submit(endpoint, user, pass).verify();
    return 'logged in';
  } catch (error) {
    const e = error as { code?: string; response?: string; message: string };
    return e.code === 'EAUTH' ? `auth failed: ${e.response ?? e.message}` : `other: ${e.code}: ${e.message}`;
  }
}

const text = 'Hi,\n\nAre we still on for Thursday? Let me know what time works for you.\n\nThanks\n';

describe('mail rig (Postfix + Dovecot + rspamd + NSD)', () => {
  let rig: MailRig;
  beforeAll(async () => {
    rig = await startMailRig({
      addressBase: '127.0.36.20',
      domains: [
        { name: 'good.example', spfDkimPass: true },
        { name: 'spammy.example', spfDkimPass: false },
      ],
      mailboxes: [alice, carol, bob],
    });
  }, 30_000);
  afterAll(async () => {
    await rig?.stop();
  });

  it("files mail from the SPF/DKIM-passing domain in INBOX and from the failing one in Junk, by the servers' logs and over IMAP", async () => {
    const sent: { id: string; from: string }[] = [];
    for (let i = 0; i < 3; i++) {
      for (const [sender, to, endpoint] of [
        [alice, bob.email, rig.submission],
        [bob, carol.email, rig.submissionTls],
      ] as const) {
        const info = await submit(endpoint, sender.email, sender.password).sendMail({
          from: sender.email,
          to,
          subject: `Thursday ${i} from ${sender.email}`,
          text,
        });
        sent.push({ id: info.messageId.replace(/^<|>$/g, ''), from: sender.email });
      }
    }
    const delivered = await rig.waitForDeliveries(sent.length);
    const folderOf = (id: string) => delivered.find((d) => d.messageId === id);
    for (const { id, from } of sent) {
      const delivery = folderOf(id);
      if (from === alice.email) {
        expect(delivery).toMatchObject({ recipient: bob.email, folder: 'INBOX' });
        expect(delivery?.verdict?.symbols).toEqual(
          expect.arrayContaining(['R_SPF_ALLOW', 'R_DKIM_ALLOW', 'DMARC_POLICY_ALLOW']),
        );
        expect(delivery?.verdict?.action).toBe('no action');
      } else {
        expect(delivery).toMatchObject({ recipient: carol.email, folder: 'Junk' });
        expect(delivery?.verdict?.symbols).toEqual(
          expect.arrayContaining(['R_SPF_FAIL', 'DMARC_POLICY_REJECT']),
        );
        expect(delivery?.verdict?.action).toBe('add header');
      }
    }
    const goodIds = sent.filter((s) => s.from === alice.email).map((s) => s.id);
    const spammyIds = sent.filter((s) => s.from === bob.email).map((s) => s.id);
    expect((await messageIds(rig.imap, bob.email, bob.password, 'INBOX')).sort()).toEqual(
      [...goodIds].sort(),
    );
    expect((await messageIds(rig.imap, carol.email, carol.password, 'Junk')).sort()).toEqual(
      [...spammyIds].sort(),
    );
    expect(await messageIds(rig.imap, carol.email, carol.password, 'INBOX')).toEqual([]);
  });

  it("serves the domains' MX, SPF, DKIM and DMARC records from its own authoritative DNS", async () => {
    const resolver = new Resolver();
    resolver.setServers([rig.dns.server]);
    expect(await resolver.resolveMx('good.example')).toEqual([{ exchange: 'mx.good.example', priority: 10 }]);
    expect((await resolver.resolveTxt('good.example')).map((t) => t.join(''))).toEqual([
      `v=spf1 ip4:${rig.submission.host} -all`,
    ]);
    expect((await resolver.resolveTxt('mailrig._domainkey.good.example')).map((t) => t.join(''))[0]).toMatch(
      /^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]{300,}$/,
    );
    expect((await resolver.resolveTxt('_dmarc.spammy.example')).map((t) => t.join(''))).toEqual([
      'v=DMARC1; p=reject',
    ]);
    await expect(resolver.resolveTxt('mailrig._domainkey.spammy.example')).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
  });

  it('marks Junk with the RFC 6154 \\Junk special-use flag and serves IMAP with STARTTLS too', async () => {
    const client = imapClient(rig.imapStarttls, alice.email, alice.password);
    await client.connect();
    const folders = await client.list();
    await client.logout();
    expect(folders.find((f) => f.specialUse === '\\Junk')?.path).toBe('Junk');
  });

  it('verifies as the rig CA: a client that does not trust it is refused', async () => {
    const error = await submit(rig.submissionTls, alice.email, alice.password, false)
      .verify()
      .then(
        () => undefined,
        (e: { code?: string; message: string }) => e,
      );
    expect(error?.message).toMatch(/self[- ]signed|unable to verify|local issuer/i);
    expect(existsSync(rig.caFile)).toBe(true);
  });

  it('is trusted by a process started with NODE_EXTRA_CA_CERTS=rig.caFile (how mailvet trusts it)', async () => {
    // A plain TLS handshake that verifies the certificate against Node's roots plus the extra CA file.
    const script = `const tls = require('node:tls');
const s = tls.connect({ host: process.argv[1], port: Number(process.argv[2]), servername: undefined }, () => {
  console.log(s.authorized ? 'authorized' : 'not authorized: ' + s.authorizationError); s.end(); });
s.on('error', (e) => console.log('error: ' + e.code));`;
    const handshake = (extra: Record<string, string>) =>
      execFileAsync(process.execPath, ['-e', script, rig.imap.host, String(rig.imap.port)], {
        env: { ...process.env, NODE_EXTRA_CA_CERTS: '', ...extra },
      }).then((r) => r.stdout.trim());
    expect(await handshake({ NODE_EXTRA_CA_CERTS: rig.caFile })).toBe('authorized');
    expect(await handshake({})).toMatch(
      /^error: (SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)$/,
    );
  });

  it('refuses a wrong password on IMAP and on submission', async () => {
    expect(await loginError(rig.imap, alice.email, 'not-the-password')).toMatch(/^auth failed/);
    expect(await smtpError(rig.submission, alice.email, 'not-the-password')).toMatch(/^auth failed: 535/);
    expect(await loginError(rig.imap, alice.email, alice.password)).toBe('logged in');
    expect(await smtpError(rig.submission, alice.email, alice.password)).toBe('logged in');
  });

  it('refuses a sender who is not the logged-in mailbox', async () => {
    const error = await submit(rig.submission, alice.email, alice.password)
      .sendMail({ from: carol.email, to: bob.email, subject: 'as carol', text })
      .then(
        () => undefined,
        (e: { responseCode?: number; response?: string }) => e,
      );
    expect(error?.responseCode).toBe(553);
  });

  it('setPassword changes the password on the server: the old one is refused, the new one works', async () => {
    await rig.setPassword(carol.email, 'carol-second-pass');
    expect(await loginError(rig.imap, carol.email, carol.password)).toMatch(/^auth failed/);
    expect(await smtpError(rig.submission, carol.email, carol.password)).toMatch(/^auth failed: 535/);
    expect(await loginError(rig.imap, carol.email, 'carol-second-pass')).toBe('logged in');
    expect(await smtpError(rig.submissionTls, carol.email, 'carol-second-pass')).toBe('logged in');
    expect(rig.connectBody(carol.email).imap.password).toBe('carol-second-pass');
  });

  it('a second rig runs beside the first on its own addresses, and stop leaves no process behind', async () => {
    const second = await startMailRig({
      addressBase: '127.0.36.30',
      domains: [{ name: 'other.example', spfDkimPass: true }],
      mailboxes: [{ email: 'dan@other.example', password: 'dan-pass' }],
    });
    const pids = second.processes();
    expect(pids.length).toBeGreaterThan(5);
    expect(await loginError(second.imap, 'dan@other.example', 'dan-pass')).toBe('logged in');
    await second.stop();
    expect(pids.filter((pid) => existsSync(`/proc/${pid}`) && !isZombie(pid))).toEqual([]);
    expect(existsSync(second.dir)).toBe(false);
    // The first rig is untouched.
    expect(await loginError(rig.imap, alice.email, alice.password)).toBe('logged in');
  }, 30_000);
});

describe('mail rig left running by a killed test process', () => {
  it('is ended by the next rig on the same addresses, which then starts', async () => {
    const scriptDir = mkdtempSync(join(tmpdir(), 'mail-rig-child-'));
    const script = join(scriptDir, 'child.ts');
    writeFileSync(
      script,
      `import { startMailRig } from ${JSON.stringify(join(__dirname, '../../helpers/real-servers/mail-rig'))};
startMailRig({ addressBase: '127.0.36.50', domains: [{ name: 'left.example', spfDkimPass: true }],
  mailboxes: [{ email: 'eve@left.example', password: 'eve-pass' }] })
  .then((rig) => console.log('ready ' + JSON.stringify(rig.processes())), (e) => console.log('failed ' + e));
setInterval(() => undefined, 1000);
`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: join(__dirname, '../../..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = await new Promise<string>((resolve) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
    });
    expect(line).toMatch(/^ready /);
    const leftover = JSON.parse(line.slice('ready '.length)) as number[];
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(leftover.filter((pid) => existsSync(`/proc/${pid}`) && !isZombie(pid)).length).toBeGreaterThan(5);
    const next = await startMailRig({
      addressBase: '127.0.36.50',
      domains: [{ name: 'left.example', spfDkimPass: true }],
      mailboxes: [{ email: 'eve@left.example', password: 'eve-pass' }],
    });
    try {
      expect(leftover.filter((pid) => existsSync(`/proc/${pid}`) && !isZombie(pid))).toEqual([]);
      expect(await loginError(next.imap, 'eve@left.example', 'eve-pass')).toBe('logged in');
    } finally {
      await next.stop();
      rmSync(scriptDir, { recursive: true, force: true });
    }
  }, 45_000);
});

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}
