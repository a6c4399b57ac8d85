// Connected mailboxes that mailvet itself writes (connect, disconnect, a status change, a measured day
// of reputation) land in the same workspace items and list views the import writes
// (docs/workspace.md), so the workspace endpoints answer them exactly as imported ones. Each change is
// one transaction behind the workspace lock, conditioned on the versions of the views it reads
// (functions/domain/workspace/transact.ts): the domain view's head is in every one of them, so two
// writers of one company never interleave their reads and writes.
import { ConflictError, NotFoundError } from '../../errors';
import type { ConnectedMailboxItem } from '../../store/entities/workspace';
import {
  domainDeleteWrites,
  mailboxDeleteWrites,
  putWrite,
  credentialsStatusWrite,
} from '../../store/mailbox-connections';
import {
  findConnectedMailbox,
  readDomainReputationBlocks,
  readMailboxReputationBlocks,
  type WorkspaceWrite,
} from '../../store/workspace';
import {
  connectedDomainItem,
  connectedMailboxItem,
  domainReputationItem,
  fieldsOf,
  mailboxReputationItem,
} from '../../store/workspace-items';
import { dayOfYear, yearOf } from '../workspace/dates';
import {
  domainView,
  mailboxView,
  userView,
  type ConnectionStatus,
  type DomainRow,
  type MailboxRow,
} from '../workspace/model';
import { rebuildDomainRows, rebuildMailboxRows } from '../workspace/rebuild';
import { mailboxRowOf } from '../workspace/rows';
import { latestValue, rollUpYear, writeSlots, emptyYear, type YearBlocks } from '../workspace/series';
import { commitWithRetry } from '../workspace/transact';
import { loadUsers } from '../workspace/users';
import {
  allRows,
  loadView,
  removeRow,
  replaceRows,
  upsertRow,
  viewTransactItems,
  type LoadedView,
} from '../workspace/views';

export const alreadyConnectedMessage = 'This mailbox is already connected';
export const mailboxNotFoundMessage = 'Connected mailbox not found';

const loadMailboxes = (companyId: string) =>
  loadView(companyId, mailboxView, () => rebuildMailboxRows(companyId));
const loadDomains = (companyId: string) =>
  loadView(companyId, domainView, () => rebuildDomainRows(companyId));

/** The years whose reputation blocks a set of mailboxes may have: from the first connection's year (less one) to next year. */
function yearSpan(members: { connectedAt: string }[], now: Date, extra: number[] = []): number[] {
  const first = Math.min(
    now.getUTCFullYear(),
    ...extra,
    ...members.map((m) => yearOf(m.connectedAt.slice(0, 10))),
  );
  const last = Math.max(now.getUTCFullYear(), ...extra) + 1;
  const years: number[] = [];
  for (let y = first - 1; y <= last; y++) years.push(y);
  return years;
}

/** Each mailbox's year blocks. */
async function blocksOf(companyId: string, ids: string[], years: number[]): Promise<Map<string, YearBlocks>> {
  const out = new Map<string, YearBlocks>(ids.map((id) => [id, new Map()]));
  if (ids.length === 0) return out;
  for (const block of await readMailboxReputationBlocks(companyId, ids, years))
    out.get(block.mailboxId)?.set(block.year, block.days);
  return out;
}

/**
 * The writes that bring a domain in line with its mailboxes (`members`, after the change; `override`
 * holds blocks the same transaction writes): its daily rollup, its item, and its row of the domain
 * view; a domain left without mailboxes goes, with its rollup.
 */
async function domainWrites(
  companyId: string,
  domain: string,
  members: MailboxRow[],
  override: Map<string, YearBlocks>,
  view: LoadedView<DomainRow>,
  now: Date,
): Promise<{ writes: WorkspaceWrite[]; view: ReturnType<typeof upsertRow<DomainRow>> }> {
  const overrideYears = [...override.values()].flatMap((blocks) => [...blocks.keys()]);
  const years = yearSpan(members, now, overrideYears);
  const before = new Map(
    (await readDomainReputationBlocks(companyId, domain, years)).map((block) => [block.year, block.days]),
  );
  if (members.length === 0) {
    return {
      writes: domainDeleteWrites(companyId, domain, [...before.keys()], true),
      view: removeRow(domainView, view, domain),
    };
  }
  const blocks = await blocksOf(
    companyId,
    members.map((m) => m.id),
    years,
  );
  for (const [id, changed] of override) for (const [year, days] of changed) blocks.get(id)?.set(year, days);
  const after: YearBlocks = new Map();
  for (const year of years) {
    const days = [...blocks.values()].flatMap((b) => (b.has(year) ? [b.get(year)!] : []));
    if (days.length > 0) after.set(year, rollUpYear(days));
  }
  const writes: WorkspaceWrite[] = [];
  for (const [year, days] of after)
    if (before.get(year) !== days)
      writes.push(putWrite(domainReputationItem(companyId, { domain, year, days })));
  writes.push(
    ...domainDeleteWrites(
      companyId,
      domain,
      [...before.keys()].filter((y) => !after.has(y)),
      false,
    ),
  );
  const latest = latestValue(after);
  const row: DomainRow = { domain, mailboxCount: members.length, currentReputation: latest?.value ?? null };
  writes.push(
    putWrite(
      connectedDomainItem(companyId, {
        domain,
        mailboxCount: members.length,
        currentReputation: row.currentReputation,
        currentReputationDate: latest?.date ?? null,
      }),
    ),
  );
  return { writes, view: upsertRow(domainView, view, row) };
}

/** The owner's row of the users view with its mailbox list changed, if the owner is a user. */
async function ownerRowWrites(
  companyId: string,
  ownerEmail: string,
  change: (mailboxes: { email: string; id: string }[]) => { email: string; id: string }[],
): Promise<WorkspaceWrite[]> {
  const users = await loadUsers(companyId);
  const owner = allRows(users).find((row) => row.email === ownerEmail.toLowerCase());
  if (!owner) return [];
  const mailboxes = change(owner.mailboxes).sort((a, b) =>
    a.email < b.email ? -1 : a.email > b.email ? 1 : 0,
  );
  return viewTransactItems(companyId, userView, replaceRows(userView, users, [{ ...owner, mailboxes }]));
}

/**
 * A newly connected mailbox: its item (`extra` adds its credentials), its row in the mailbox view, its
 * domain's count, and its owner's mailbox list. 409 when the address is already connected.
 */
export async function addConnectedMailbox(
  companyId: string,
  row: MailboxRow,
  extra: WorkspaceWrite[],
  now: Date,
): Promise<void> {
  await commitWithRetry(companyId, now, async () => {
    const domains = await loadDomains(companyId);
    const mailboxes = await loadMailboxes(companyId);
    const rows = allRows(mailboxes);
    if (rows.some((r) => r.email === row.email)) throw new ConflictError(alreadyConnectedMessage);
    const members = [...rows.filter((r) => r.domain === row.domain), row];
    const domain = await domainWrites(companyId, row.domain, members, new Map(), domains, now);
    const item = connectedMailboxItem(companyId, {
      ...row,
      currentReputation: null,
      currentReputationDate: null,
    });
    return {
      result: undefined,
      items: [
        putWrite(item, false),
        ...extra,
        ...viewTransactItems(companyId, mailboxView, upsertRow(mailboxView, mailboxes, row)),
        ...domain.writes,
        ...viewTransactItems(companyId, domainView, domain.view),
        ...(await ownerRowWrites(companyId, row.owner.email, (list) => [
          ...list.filter((m) => m.email !== row.email),
          { email: row.email, id: row.id },
        ])),
      ],
    };
  });
}

/** A disconnected mailbox: item, credentials and series gone; its domain and owner updated. 404 when unknown. */
export async function removeConnectedMailbox(companyId: string, id: string, now: Date): Promise<MailboxRow> {
  return commitWithRetry(companyId, now, async () => {
    const domains = await loadDomains(companyId);
    const item = await findConnectedMailbox(companyId, id);
    if (!item) throw new NotFoundError(mailboxNotFoundMessage);
    const row = mailboxRowOf(item);
    const mailboxes = await loadMailboxes(companyId);
    const members = allRows(mailboxes).filter((r) => r.domain === row.domain && r.id !== id);
    const years = yearSpan([row], now);
    const own = (await blocksOf(companyId, [id], years)).get(id) ?? new Map();
    const domain = await domainWrites(companyId, row.domain, members, new Map(), domains, now);
    return {
      result: row,
      items: [
        ...mailboxDeleteWrites(companyId, row, [...own.keys()]),
        ...viewTransactItems(companyId, mailboxView, removeRow(mailboxView, mailboxes, row.email)),
        ...domain.writes,
        ...viewTransactItems(companyId, domainView, domain.view),
        ...(await ownerRowWrites(companyId, row.owner.email, (list) => list.filter((m) => m.id !== id))),
      ],
    };
  });
}

/**
 * A mailbox's connection status as the last login found it; `statusUpdatedAt` moves only when the
 * status changes. Returns the status before (undefined: the mailbox is gone).
 */
export async function setConnectionStatus(
  companyId: string,
  id: string,
  status: ConnectionStatus,
  now: Date,
): Promise<ConnectionStatus | undefined> {
  return commitWithRetry(companyId, now, async () => {
    const item = await findConnectedMailbox(companyId, id);
    if (!item) return { items: null, result: undefined };
    if (item.connectionStatus === status) return { items: null, result: status };
    const mailboxes = await loadMailboxes(companyId);
    const next = connectedMailboxItem(companyId, {
      ...fieldsOf(item),
      connectionStatus: status,
      statusUpdatedAt: now.toISOString(),
    });
    return {
      result: item.connectionStatus,
      items: [
        putWrite(next, true, id),
        credentialsStatusWrite(companyId, id, status),
        ...viewTransactItems(
          companyId,
          mailboxView,
          replaceRows(mailboxView, mailboxes, [mailboxRowOf(next)]),
        ),
      ],
    };
  });
}

/**
 * Writes a mailbox's reputation of one day (null clears it), its current reputation, and its domain's
 * rollup. `measure` is called inside each attempt, after the domain view's version is read, so a value
 * measured from data another writer has just changed cannot overwrite theirs.
 */
export async function writeDailyReputation(
  companyId: string,
  id: string,
  day: string,
  measure: (mailbox: ConnectedMailboxItem) => Promise<number | null>,
  now: Date,
): Promise<number | null | undefined> {
  return commitWithRetry(companyId, now, async () => {
    const domains = await loadDomains(companyId);
    const item = await findConnectedMailbox(companyId, id);
    if (!item) return { items: null, result: undefined };
    const value = await measure(item);
    const mailboxes = await loadMailboxes(companyId);
    const members = allRows(mailboxes).filter((r) => r.domain === item.domain);
    const year = yearOf(day);
    const own =
      (await blocksOf(companyId, [id], yearSpan([item], now, [year]))).get(id) ?? new Map<number, string>();
    const days = writeSlots(own.get(year) ?? emptyYear, [[dayOfYear(day), value]]);
    own.set(year, days);
    const latest = latestValue(own);
    const domain = await domainWrites(companyId, item.domain, members, new Map([[id, own]]), domains, now);
    const next = connectedMailboxItem(companyId, {
      ...fieldsOf(item),
      currentReputation: latest?.value ?? null,
      currentReputationDate: latest?.date ?? null,
    });
    return {
      result: value,
      items: [
        putWrite(mailboxReputationItem(companyId, { mailboxId: id, year, days })),
        putWrite(next, true, id),
        ...domain.writes,
        ...viewTransactItems(companyId, domainView, domain.view),
      ],
    };
  });
}
