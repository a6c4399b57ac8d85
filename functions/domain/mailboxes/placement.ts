// Measured reputation (decisions "Connected mailboxes"; docs/mailboxes.md). Each day every mailbox of
// the network (the mailboxes with credentials, all companies) sends PLACEMENT_TESTS_PER_DAY tagged test
// messages, one recipient each, to connected mailboxes of other domains of the network, and never to
// anyone else; each receiver is read over IMAP until its tests are found (inbox or spam; spam ones
// are moved to the inbox and marked read) or the readings run out (not found). Each sender's daily
// reputation is then computed from the tests it sent (./reputation.ts) and written to the workspace.
// Every run logs in: a refused login makes the mailbox credentials_error, the next accepted one
// connected again; a network failure changes nothing.
// Primary course of a day: planPlacementDay (the schedule) fans out one send message per mailbox and
// one check message per mailbox; sendPlacementTests (per sender) and checkPlacement (per receiver) do
// the work, so one mailbox never holds another.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { MailboxLoginError, MailboxUnreachableError } from '../../errors';
import type { Logger } from '../../log';
import { settings } from '../../settings';
import { sendMessage, sendMessageBatch } from '../../store/queues';
import type { MailboxCredentialsItem, PlacementTestItem } from '../../store/entities/mailboxes';
import {
  openPasswords,
  putPlacementTests,
  readCredentials,
  readInboxTests,
  readNetwork,
  readSenderTests,
  setPlacement,
} from '../../store/mailbox-connections';
import { addDays, isDate } from '../workspace/dates';
import { loginOf } from './logins';
import type { MailServers, ServerLogin } from './ports';
import { poolDays, reputationOn } from './reputation';
import {
  dayMarker,
  newTag,
  parsePlacementMessageId,
  placementMessageId,
  tagOfSubject,
  testContent,
} from './tags';
import { setConnectionStatus, writeDailyReputation } from './workspace-sync';

const day = z.string().refine(isDate, { error: 'day must be a YYYY-MM-DD date' });
const recipient = z.object({
  companyId: z.string().min(1),
  mailboxId: z.string().min(1),
  email: z.string().min(3),
});

/** The send queue's message: one sender's tests of one day, recipients chosen by the plan. */
export const placementSendMessageSchema = z.object({
  companyId: z.string().min(1),
  mailboxId: z.string().min(1),
  day,
  recipients: z.array(recipient).max(50),
});
export type PlacementSendMessage = z.infer<typeof placementSendMessageSchema>;

/** The check queue's message: one reading of one receiver's tests of a day. */
export const placementCheckMessageSchema = z.object({
  companyId: z.string().min(1),
  mailboxId: z.string().min(1),
  day,
  attempt: z.number().int().min(1),
});
export type PlacementCheckMessage = z.infer<typeof placementCheckMessageSchema>;

type Recipient = z.infer<typeof recipient>;

/** A stable pseudo-random order of candidates for one sender and day. */
function rank(seed: string, id: string): string {
  return createHash('sha256').update(`${seed}|${id}`).digest('hex');
}

/**
 * Who each sender writes to on `day`: `perDay` recipients among the connected mailboxes of other
 * domains (candidates repeat when there are fewer than `perDay`), in an order that changes daily.
 * Mailboxes in credentials_error still send (their login is how they recover) but receive nothing.
 */
export function planRecipients(
  network: readonly Pick<
    MailboxCredentialsItem,
    'companyId' | 'mailboxId' | 'email' | 'domain' | 'connectionStatus'
  >[],
  forDay: string,
  perDay: number,
): Map<string, Recipient[]> {
  const plan = new Map<string, Recipient[]>();
  const receivers = network.filter((m) => m.connectionStatus === 'connected');
  for (const sender of network) {
    const seed = `${forDay}|${sender.mailboxId}`;
    const candidates = receivers
      .filter((m) => m.domain !== sender.domain && m.mailboxId !== sender.mailboxId)
      .map((m) => ({ m, order: rank(seed, m.mailboxId) }))
      .sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0))
      .map(({ m }) => ({ companyId: m.companyId, mailboxId: m.mailboxId, email: m.email }));
    const chosen: Recipient[] = [];
    for (let i = 0; candidates.length > 0 && i < perDay; i++) chosen.push(candidates[i % candidates.length]!);
    plan.set(sender.mailboxId, chosen);
  }
  return plan;
}

export interface DayPlan {
  sends: PlacementSendMessage[];
  checks: PlacementCheckMessage[];
}

/** The day's send and check messages, one of each per mailbox of the network. */
export async function planPlacementDay(forDay: string): Promise<DayPlan> {
  const network = await readNetwork();
  const plan = planRecipients(network, forDay, settings().PLACEMENT_TESTS_PER_DAY);
  return {
    sends: network.map((m) => ({
      companyId: m.companyId,
      mailboxId: m.mailboxId,
      day: forDay,
      recipients: plan.get(m.mailboxId) ?? [],
    })),
    checks: network.map((m) => ({ companyId: m.companyId, mailboxId: m.mailboxId, day: forDay, attempt: 1 })),
  };
}

/** What a login told about the credentials: refused -> credentials_error; accepted -> connected. */
async function recordLogin(
  mailbox: MailboxCredentialsItem,
  outcome: 'accepted' | unknown,
  now: Date,
  log: Logger,
): Promise<void> {
  const status =
    outcome === 'accepted' ? 'connected' : outcome instanceof MailboxLoginError ? 'credentials_error' : null;
  if (status === null) return;
  const before = await setConnectionStatus(mailbox.companyId, mailbox.mailboxId, status, now);
  if (before !== undefined && before !== status)
    log.info('mailbox connection status changed', { mailboxId: mailbox.mailboxId, from: before, to: status });
}

/** Why a session failed, for the log: never the server's words alone with an address in them. */
function failureKind(error: unknown): string {
  if (error instanceof MailboxLoginError) return `${error.protocol} login refused`;
  if (error instanceof MailboxUnreachableError) return `${error.protocol} unreachable: ${error.reason}`;
  return error instanceof Error ? error.name : 'unknown';
}

export interface RunClock {
  /** The run's time (the simulated day's, for `npm run placement -- --day`). */
  now: Date;
  /** The Date header of the test messages: the real time they are sent. */
  mailDate: Date;
}

/**
 * One sender's tests of a day: logs in to its SMTP server and sends the tests not sent yet (a message
 * delivered twice sends nothing twice), recording each one sent. 'retry' when the server could not be
 * reached (SQS delivers the message again); a refused login is final for the day.
 */
export async function sendPlacementTests(
  message: PlacementSendMessage,
  servers: MailServers,
  clock: RunClock,
  log: Logger,
): Promise<'sent' | 'gone' | 'refused' | 'retry'> {
  const mailbox = await readCredentials(message.companyId, message.mailboxId);
  if (!mailbox) return 'gone';
  const already = await readSenderTests(message.companyId, message.mailboxId, message.day, message.day);
  const todo = message.recipients.slice(already.length);
  let smtp: ServerLogin;
  try {
    smtp = await loginOf(mailbox, await openPasswords(mailbox), 'SMTP');
  } catch (error) {
    log.warn('placement tests not sent', { mailboxId: mailbox.mailboxId, why: failureKind(error) });
    return 'retry';
  }
  const timeoutMs = settings().MAILBOX_TIMEOUT_MS;
  const senderDomain = mailbox.domain;
  const tests = todo.map((to) => {
    const tag = newTag();
    return {
      to,
      tag,
      messageId: placementMessageId(message.day, tag, senderDomain),
      ...testContent(tag, mailbox.email, to.email),
    };
  });
  const outcome =
    tests.length === 0
      ? await servers.verifySmtp(smtp, timeoutMs).then(
          () => ({ sent: 0 }) as { sent: number; failure?: Error },
          (failure: Error) => ({ sent: 0, failure }),
        )
      : await servers.send(
          smtp,
          tests.map((t) => ({
            from: mailbox.email,
            to: t.to.email,
            subject: t.subject,
            text: t.text,
            messageId: t.messageId,
            date: clock.mailDate,
          })),
          timeoutMs,
        );
  await putPlacementTests(
    tests.slice(0, outcome.sent).map((t) => ({
      tag: t.tag,
      day: message.day,
      senderCompanyId: mailbox.companyId,
      senderId: mailbox.mailboxId,
      recipientCompanyId: t.to.companyId,
      recipientId: t.to.mailboxId,
      messageId: t.messageId,
      sentAt: clock.now.toISOString(),
      placement: 'pending',
    })),
    clock.now,
  );
  // A refused login is a credentials error; a message sent (or none needed) proves the login; a
  // failure before any message tells nothing about the credentials.
  if (outcome.failure instanceof MailboxLoginError)
    await recordLogin(mailbox, outcome.failure, clock.now, log);
  else if (outcome.sent > 0 || outcome.failure === undefined)
    await recordLogin(mailbox, 'accepted', clock.now, log);
  log.info('placement tests sent', {
    mailboxId: mailbox.mailboxId,
    day: message.day,
    sent: outcome.sent,
    planned: todo.length,
  });
  if (outcome.failure instanceof MailboxLoginError) return 'refused';
  return outcome.failure ? 'retry' : 'sent';
}

/**
 * One reading of a receiver's tests of a day: logs in over IMAP, finds the tagged messages (spam ones
 * moved to the inbox and marked read), records where each pending test was, and scores the senders
 * whose tests it settled. `final`: tests still not found count as not found. 'again' when some are
 * still pending and this was not the final reading.
 */
export async function checkPlacement(
  message: PlacementCheckMessage,
  servers: MailServers,
  now: Date,
  final: boolean,
  log: Logger,
  /** Every send of the day is known to be done: a receiver with no test has none coming. */
  sendsDone = false,
): Promise<'done' | 'again' | 'gone'> {
  const mailbox = await readCredentials(message.companyId, message.mailboxId);
  if (!mailbox) return 'gone';
  const tests = await readInboxTests(message.mailboxId, message.day);
  const pending = new Map(tests.filter((t) => t.placement === 'pending').map((t) => [t.tag, t]));
  let found: { tag: string; folder: 'inbox' | 'spam' }[] = [];
  try {
    const imap = await loginOf(mailbox, await openPasswords(mailbox), 'IMAP');
    const messages = await servers.readTagged(imap, dayMarker(message.day), settings().MAILBOX_TIMEOUT_MS);
    found = messages.flatMap((m) => {
      const tag = parsePlacementMessageId(m.messageId)?.tag ?? tagOfSubject(m.subject);
      return tag === null ? [] : [{ tag, folder: m.folder }];
    });
    await recordLogin(mailbox, 'accepted', now, log);
  } catch (error) {
    log.warn('placement reading failed', { mailboxId: mailbox.mailboxId, why: failureKind(error) });
    await recordLogin(mailbox, error, now, log);
  }
  const settled: PlacementTestItem[] = [];
  for (const { tag, folder } of found) {
    const test = pending.get(tag);
    if (!test) continue;
    await setPlacement(test, folder, now);
    pending.delete(tag);
    settled.push(test);
  }
  const again = !final && (pending.size > 0 || (tests.length === 0 && !sendsDone));
  if (!again) {
    for (const test of pending.values()) {
      await setPlacement(test, 'missing', now);
      settled.push(test);
    }
  }
  const senders = new Map(settled.map((t) => [t.senderId, t.senderCompanyId]));
  for (const [senderId, companyId] of senders) await scoreSender(companyId, senderId, message.day, now);
  log.info('placement reading', {
    mailboxId: mailbox.mailboxId,
    day: message.day,
    attempt: message.attempt,
    found: settled.length - (again ? 0 : pending.size),
    pending: pending.size,
  });
  return again ? 'again' : 'done';
}

/** Writes a sender's reputation of `forDay` from its tests of the 7 days ending then. */
async function scoreSender(
  companyId: string,
  senderId: string,
  forDay: string,
  now: Date,
): Promise<number | null | undefined> {
  return writeDailyReputation(
    companyId,
    senderId,
    forDay,
    async (mailbox) =>
      reputationOn(
        forDay,
        mailbox.connectedAt,
        await readSenderTests(companyId, senderId, addDays(forDay, -(poolDays - 1)), forDay),
      ),
    now,
  );
}

/** The schedule's run: the day's send messages now, and the first reading of every mailbox after the delay. */
export async function startPlacementDay(forDay: string, log: Logger): Promise<DayPlan> {
  const plan = await planPlacementDay(forDay);
  for (let i = 0; i < plan.sends.length; i += 10)
    await sendMessageBatch(
      'placementSends',
      plan.sends.slice(i, i + 10).map((message, k) => ({ id: `s${i + k}`, message })),
    );
  const delay = settings().PLACEMENT_CHECK_DELAY_SECONDS;
  for (const message of plan.checks) await sendMessage('placementChecks', message, delay);
  log.info('placement day started', { day: forDay, mailboxes: plan.sends.length });
  return plan;
}

/** One queued reading: the last allowed one settles what is still missing; otherwise the next is queued. */
export async function readPlacementMessage(
  message: PlacementCheckMessage,
  servers: MailServers,
  now: Date,
  log: Logger,
): Promise<void> {
  const s = settings();
  const outcome = await checkPlacement(
    message,
    servers,
    now,
    message.attempt >= s.PLACEMENT_CHECK_ATTEMPTS,
    log,
  );
  if (outcome === 'again')
    await sendMessage(
      'placementChecks',
      { ...message, attempt: message.attempt + 1 },
      s.PLACEMENT_CHECK_DELAY_SECONDS,
    );
}
