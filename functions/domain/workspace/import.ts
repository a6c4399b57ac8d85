// Idempotent upsert of workspace data (the import CLI, the generator and the demo seed all land here).
// Primary course: take the workspace lock; read the company's current items; merge the file into them
// (ids kept, Safety Net activation kept unless given, reputation days merged); write what changed;
// recompute what derives from mailboxes (current reputation, domains and their daily rollups, users'
// mailbox lists); rewrite every list view; release the lock.
import { systemClock, type Clock } from '../../clock';
import { createHash } from 'node:crypto';
import { sortedJson } from '../../json';
import { dayOfYear, yearOf } from './dates';
import { workspaceImportSchema, type WorkspaceImportInput } from './import-schema';
import { acquireWorkspaceLock, releaseWorkspaceLock } from './lock';
import {
  domainView,
  inviteLifetimeMs,
  mailboxView,
  safetyNetMailboxView,
  sequenceView,
  userView,
  type DomainRow,
  type Integration,
  type MailboxRow,
} from './model';
import {
  emptyYear,
  latestValue,
  readSlot,
  roundMean,
  slotsPerYear,
  writeSlots,
  type YearBlocks,
} from './series';
import type { StoredItem } from '../../store/entities/declare';
import type {
  ConnectedDomainItem,
  DomainReputationItem,
  MailboxReputationItem,
} from '../../store/entities/workspace';
import type { ItemKey } from '../../store/keys';
import {
  readConnectedDomains,
  readConnectedMailboxes,
  readDomainReputations,
  readMailboxReputations,
  readSafetyNetMailboxes,
  readSafetyNetSequences,
  readUsers,
  writeItems,
} from '../../store/workspace';
import { mailboxesByOwner, mailboxRowOf, safetyNetMailboxRowOf, sequenceRowOf, userRowOf } from './rows';
import { writeWholeView } from './views';
import { safetyNetSequenceKey } from '../../store/keys';
import {
  connectedDomainItem,
  connectedMailboxItem,
  domainReputationItem,
  fieldsOf,
  mailboxReputationItem,
  safetyNetMailboxItem,
  safetyNetSequenceItem,
  userItem,
} from '../../store/workspace-items';

export interface ImportSummary {
  companyId: string;
  connectedMailboxes: number;
  reputationYears: number;
  domains: number;
  users: number;
  safetyNetMailboxes: number;
  safetyNetSequences: number;
  itemsWritten: number;
}

/** A stable UUID (version 5 layout) from a natural key, so re-importing a file keeps every id. */
export function stableId(companyId: string, kind: string, naturalKey: string): string {
  const hex = createHash('sha256').update(`${companyId}|${kind}|${naturalKey}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const permissionsFor = (role: string) => ({
  inviteUsers: role === 'admin',
  toggleSequences: role === 'admin',
});
const sequenceGroup = (service: string, crmSequenceId: string) => `${service}\u0000${crmSequenceId}`;
const keyOf = ({ pk, sk }: ItemKey): ItemKey => ({ pk, sk });

/** Same content, ignoring key order: an unchanged item is not written again. */
function sameItem(a: StoredItem | undefined, b: StoredItem): boolean {
  return a !== undefined && sortedJson(a) === sortedJson(b);
}

export async function importWorkspace(
  input: WorkspaceImportInput,
  clock: Clock = systemClock,
): Promise<ImportSummary> {
  const now = clock();
  const file = workspaceImportSchema.parse(input);
  const { companyId } = file;
  const token = await acquireWorkspaceLock(companyId, clock);
  try {
    const [mailboxItems, blockItems, userItems, snItems, seqItems] = await Promise.all([
      readConnectedMailboxes(companyId),
      readMailboxReputations(companyId),
      readUsers(companyId),
      readSafetyNetMailboxes(companyId),
      readSafetyNetSequences(companyId),
    ]);
    const writes: StoredItem[] = [];
    const deletes: ItemKey[] = [];
    const put = (before: StoredItem | undefined, after: StoredItem) => {
      if (!sameItem(before, after)) writes.push(after);
    };

    // Connected mailboxes and their yearly reputation blocks.
    const mailboxes = new Map(mailboxItems.map((item) => [item.email, item]));
    const blocks: MailboxBlocks = new Map(); // mailbox id -> year -> block item
    for (const block of blockItems) {
      const byYear = blocks.get(block.mailboxId) ?? new Map<number, MailboxReputationItem>();
      byYear.set(block.year, block);
      blocks.set(block.mailboxId, byYear);
    }
    for (const entry of file.connectedMailboxes) {
      const existing = mailboxes.get(entry.email);
      const id = entry.id ?? existing?.id ?? stableId(companyId, 'cmbx', entry.email);
      if (existing && existing.id !== id) {
        // A reconnected mailbox gets a new id and starts a new series (docs/api.md).
        for (const block of blocks.get(existing.id)?.values() ?? []) deletes.push(keyOf(block));
        blocks.delete(existing.id);
      }
      const byYear = blocks.get(id) ?? new Map<number, MailboxReputationItem>();
      blocks.set(id, byYear);
      const updatesByYear = new Map<number, [number, number | null][]>();
      for (const [date, value] of Object.entries(entry.reputation ?? {})) {
        const list = updatesByYear.get(yearOf(date)) ?? [];
        list.push([dayOfYear(date), value]);
        updatesByYear.set(yearOf(date), list);
      }
      for (const [year, updates] of updatesByYear) {
        const before = byYear.get(year);
        const after = mailboxReputationItem(companyId, {
          mailboxId: id,
          year,
          days: writeSlots(before?.days ?? emptyYear, updates),
        });
        byYear.set(year, after);
        put(before, after);
      }
      const sameStatus = existing?.id === id && existing.connectionStatus === entry.connectionStatus;
      mailboxes.set(
        entry.email,
        connectedMailboxItem(companyId, {
          id,
          email: entry.email,
          domain: entry.email.slice(entry.email.lastIndexOf('@') + 1),
          provider: entry.provider,
          connectionStatus: entry.connectionStatus,
          connectedAt: entry.connectedAt,
          statusUpdatedAt:
            entry.statusUpdatedAt ?? (sameStatus ? existing.statusUpdatedAt : undefined) ?? entry.connectedAt,
          owner: entry.owner,
          ...currentReputationOf(byYear),
        }),
      );
    }
    // Current reputation follows the series, whoever wrote it (a mailbox the file left out included).
    const mailboxesBefore = new Map(mailboxItems.map((item) => [item.email, item]));
    for (const [email, item] of mailboxes) {
      const current = currentReputationOf(blocks.get(item.id));
      const next =
        item.currentReputation === current.currentReputation &&
        item.currentReputationDate === current.currentReputationDate
          ? item
          : connectedMailboxItem(companyId, { ...fieldsOf(item), ...current });
      mailboxes.set(email, next);
      put(mailboxesBefore.get(email), next);
    }
    const mailboxRows = [...mailboxes.values()].map(mailboxRowOf);

    // Domains: derived from mailboxes; daily value = rounded mean of the domain's mailboxes that day.
    const existingDomains = await readConnectedDomains(companyId);
    const existingDomainBlocks = await readDomainReputations(companyId);
    const domainRows = rollUpDomains(
      companyId,
      mailboxRows,
      blocks,
      existingDomains,
      existingDomainBlocks,
      put,
      deletes,
    );

    // Users: invites and active users; their mailbox lists come from the mailboxes' owners.
    const users = new Map(userItems.map((item) => [item.email.toLowerCase(), item]));
    for (const entry of file.users) {
      const existing = users.get(entry.email);
      const base = {
        companyId,
        email: entry.email,
        name: entry.name,
        role: entry.role,
        status: entry.status,
        permissions: existing?.permissions ?? permissionsFor(entry.role),
      };
      const item =
        entry.status === 'active'
          ? userItem(companyId, {
              ...base,
              userId: entry.id ?? existing?.userId ?? stableId(companyId, 'user', entry.email),
              createdAt: entry.createdAt ?? existing?.createdAt ?? now.toISOString(),
            })
          : userItem(companyId, {
              ...base,
              inviteExpiresAt:
                entry.inviteExpiresAt ??
                existing?.inviteExpiresAt ??
                new Date(now.getTime() + inviteLifetimeMs).toISOString(),
              invitedAt: existing?.invitedAt ?? now.toISOString(),
            });
      users.set(entry.email, item);
      put(existing, item);
    }
    const owners = mailboxesByOwner(mailboxRows);
    const userRows = [...users.values()].map((item) =>
      userRowOf(item, owners.get(item.email.toLowerCase()) ?? []),
    );

    // Safety Net mailboxes: one per email, integrations merged by service.
    const snMailboxes = new Map(snItems.map((item) => [item.email, item]));
    for (const entry of file.safetyNetMailboxes) {
      const existing = snMailboxes.get(entry.email);
      const integrations = new Map<string, Integration>(
        (existing?.integrations ?? []).map((i) => [i.service, i]),
      );
      for (const integration of entry.integrations) integrations.set(integration.service, integration);
      const id = entry.id ?? existing?.id ?? stableId(companyId, 'snmbx', entry.email);
      const item = safetyNetMailboxItem(companyId, {
        id,
        email: entry.email,
        activated: entry.activated ?? existing?.activated ?? false,
        integrations: [...integrations.values()].sort((a, b) => (a.service < b.service ? -1 : 1)),
      });
      snMailboxes.set(entry.email, item);
      put(existing, item);
    }

    // Sequences: one row per owner; every row of a sequence shares its activation.
    const sequencesBefore = new Map(seqItems.map((item) => [item.sk, item]));
    const sequences = new Map(sequencesBefore);
    const activation = new Map<string, boolean>();
    for (const item of seqItems)
      activation.set(sequenceGroup(item.service, item.crmSequenceId), item.activated);
    for (const entry of file.safetyNetSequences) {
      if (entry.activated !== undefined)
        activation.set(sequenceGroup(entry.service, entry.crmSequenceId), entry.activated);
    }
    const touchedGroups = new Set<string>();
    for (const entry of file.safetyNetSequences) {
      const { sk } = safetyNetSequenceKey(companyId, entry.service, entry.crmSequenceId, entry.owner.email);
      const existing = sequences.get(sk);
      const id =
        entry.id ??
        existing?.id ??
        stableId(companyId, 'snseq', `${entry.service}|${entry.crmSequenceId}|${entry.owner.email}`);
      const item = safetyNetSequenceItem(companyId, {
        id,
        service: entry.service,
        crmSequenceId: entry.crmSequenceId,
        name: entry.name,
        activated: activation.get(sequenceGroup(entry.service, entry.crmSequenceId)) ?? false,
        owner: entry.owner,
      });
      sequences.set(sk, item);
      touchedGroups.add(sequenceGroup(entry.service, entry.crmSequenceId));
    }
    for (const [sk, item] of sequences) {
      const group = sequenceGroup(item.service, item.crmSequenceId);
      const activated = touchedGroups.has(group) ? (activation.get(group) ?? false) : item.activated;
      const next =
        activated === item.activated
          ? item
          : safetyNetSequenceItem(companyId, { ...fieldsOf(item), activated });
      sequences.set(sk, next);
      put(sequencesBefore.get(sk), next);
    }

    await writeItems({ puts: writes, deletes });
    await Promise.all([
      writeWholeView(companyId, mailboxView, mailboxRows),
      writeWholeView(companyId, domainView, domainRows),
      writeWholeView(companyId, userView, userRows),
      writeWholeView(companyId, safetyNetMailboxView, [...snMailboxes.values()].map(safetyNetMailboxRowOf)),
      writeWholeView(companyId, sequenceView, [...sequences.values()].map(sequenceRowOf)),
    ]);
    return {
      companyId,
      connectedMailboxes: mailboxRows.length,
      reputationYears: [...blocks.values()].reduce((n, years) => n + years.size, 0),
      domains: domainRows.length,
      users: userRows.length,
      safetyNetMailboxes: snMailboxes.size,
      safetyNetSequences: sequences.size,
      itemsWritten: writes.length,
    };
  } finally {
    await releaseWorkspaceLock(companyId, token);
  }
}

/** Each mailbox's yearly reputation blocks: mailbox id -> year -> block item. */
type MailboxBlocks = Map<string, Map<number, MailboxReputationItem>>;

function blocksOf(byYear: Map<number, MailboxReputationItem> | undefined): YearBlocks {
  const out: YearBlocks = new Map();
  for (const [year, item] of byYear ?? []) out.set(year, item.days);
  return out;
}

/** A mailbox's current reputation: the latest value of its series. */
function currentReputationOf(byYear: Map<number, MailboxReputationItem> | undefined) {
  const latest = latestValue(blocksOf(byYear));
  return { currentReputation: latest?.value ?? null, currentReputationDate: latest?.date ?? null };
}

/** Domain items, their yearly rollup blocks, and the domain rows of the list view. */
function rollUpDomains(
  companyId: string,
  mailboxRows: MailboxRow[],
  blocks: MailboxBlocks,
  existingDomains: ConnectedDomainItem[],
  existingBlocks: DomainReputationItem[],
  put: (before: StoredItem | undefined, after: StoredItem) => void,
  deletes: ItemKey[],
): DomainRow[] {
  const byDomain = new Map<string, MailboxRow[]>();
  for (const row of mailboxRows) byDomain.set(row.domain, [...(byDomain.get(row.domain) ?? []), row]);
  const oldDomains = new Map(existingDomains.map((item) => [item.domain, item]));
  const oldBlocks = new Map(existingBlocks.map((item) => [item.sk, item]));
  const keptBlocks = new Set<string>();
  const rows: DomainRow[] = [];
  for (const [domain, members] of byDomain) {
    const sums = new Map<number, { sum: Int32Array; count: Int32Array }>();
    for (const member of members) {
      for (const [year, block] of blocks.get(member.id) ?? []) {
        const acc = sums.get(year) ?? {
          sum: new Int32Array(slotsPerYear),
          count: new Int32Array(slotsPerYear),
        };
        sums.set(year, acc);
        const days = block.days;
        for (let i = 0; i < slotsPerYear; i++) {
          const value = readSlot(days, i);
          if (value !== null) {
            acc.sum[i]! += value;
            acc.count[i]! += 1;
          }
        }
      }
    }
    const domainBlocks: YearBlocks = new Map();
    for (const [year, acc] of sums) {
      const updates: [number, number | null][] = [];
      for (let i = 0; i < slotsPerYear; i++)
        updates.push([i, acc.count[i]! > 0 ? roundMean(acc.sum[i]!, acc.count[i]!) : null]);
      const days = writeSlots(emptyYear, updates);
      domainBlocks.set(year, days);
      const block = domainReputationItem(companyId, { domain, year, days });
      keptBlocks.add(block.sk);
      put(oldBlocks.get(block.sk), block);
    }
    const latest = latestValue(domainBlocks);
    const item = connectedDomainItem(companyId, {
      domain,
      mailboxCount: members.length,
      currentReputation: latest?.value ?? null,
      currentReputationDate: latest?.date ?? null,
    });
    put(oldDomains.get(domain), item);
    rows.push({ domain, mailboxCount: members.length, currentReputation: latest?.value ?? null });
  }
  // Domains without mailboxes left, and rollup years no mailbox has any more.
  for (const item of existingDomains) if (!byDomain.has(item.domain)) deletes.push(keyOf(item));
  for (const item of existingBlocks) if (!keptBlocks.has(item.sk)) deletes.push(keyOf(item));
  return rows;
}
