// A platform's mailboxes and sequences become its part of the Safety Net lists (docs/safety-net.md).
// Primary course: take the workspace lock (no PATCH or import can slip in between); read the lists'
// items; replace this platform's share: one mailbox per address (case variants merged), one sequence row
// per owner, `activated` kept for what stays, new ones off, what the platform no longer has gone
// (a mailbox that another platform still has keeps that integration); write the changes; rewrite both
// list views; release the lock. Nothing is written before everything was read from the platform, so a
// sync that fails half way leaves the last good lists.
import type { Clock } from '../../clock';
import { sortedJson } from '../../json';
import type { StoredItem } from '../../store/entities/declare';
import type { SafetyNetMailboxItem, SafetyNetSequenceItem } from '../../store/entities/workspace';
import type { ItemKey } from '../../store/keys';
import type { SafetyNetPlatform } from '../../store/safety-net';
import { readSafetyNetMailboxes, readSafetyNetSequences, writeItems } from '../../store/workspace';
import { fieldsOf, safetyNetMailboxItem, safetyNetSequenceItem } from '../../store/workspace-items';
import { stableId } from '../workspace/import';
import { acquireWorkspaceLock, releaseWorkspaceLock } from '../workspace/lock';
import { safetyNetMailboxView, sequenceView, type Integration } from '../workspace/model';
import { safetyNetMailboxRowOf, sequenceRowOf } from '../workspace/rows';
import { writeWholeView } from '../workspace/views';
import type { PlatformMailbox, PlatformSequence } from './platforms/types';

export interface PlatformLists {
  mailboxes: PlatformMailbox[];
  sequences: PlatformSequence[];
}

export interface ListsChange {
  mailboxes: number;
  sequences: number;
  written: number;
  deleted: number;
}

const keyOf = ({ pk, sk }: ItemKey): ItemKey => ({ pk, sk });
const sameItem = (a: StoredItem, b: StoredItem) => sortedJson(a) === sortedJson(b);
const byService = (a: Integration, b: Integration) =>
  a.service < b.service ? -1 : a.service > b.service ? 1 : 0;

/** The platform's mailboxes by lower-cased address: case variants are one entry, with the lowest id. */
export function mergedMailboxes(mailboxes: PlatformMailbox[]): Map<string, string> {
  const out = new Map<string, string>();
  const numeric = (id: string) => (/^\d+$/.test(id) ? id.padStart(20, '0') : id);
  for (const mailbox of mailboxes) {
    const email = mailbox.email.trim().toLowerCase();
    if (!email.includes('@')) continue;
    const known = out.get(email);
    if (known === undefined || numeric(mailbox.externalId) < numeric(known))
      out.set(email, mailbox.externalId);
  }
  return out;
}

/** One row per (sequence, owner address without regard to case). */
export function ownerRows(sequences: PlatformSequence[]): Map<string, PlatformSequence> {
  const out = new Map<string, PlatformSequence>();
  for (const sequence of sequences) {
    const owner = { ...sequence.owner, email: sequence.owner.email.trim().toLowerCase() };
    if (!owner.email.includes('@')) continue;
    const key = `${sequence.crmSequenceId}\u0000${owner.email}`;
    if (!out.has(key)) out.set(key, { ...sequence, owner });
  }
  return out;
}

/**
 * Replaces the platform's share of the Safety Net lists with `lists` (null: the platform leaves them,
 * as when its connection is deleted).
 */
export async function replacePlatformItems(
  companyId: string,
  platform: SafetyNetPlatform,
  lists: PlatformLists | null,
  clock: Clock,
): Promise<ListsChange> {
  const token = await acquireWorkspaceLock(companyId, clock);
  try {
    const [mailboxItems, sequenceItems] = await Promise.all([
      readSafetyNetMailboxes(companyId),
      readSafetyNetSequences(companyId),
    ]);
    const puts: StoredItem[] = [];
    const deletes: ItemKey[] = [];

    // Mailboxes: this platform's integration replaced on every entry.
    const wanted = mergedMailboxes(lists?.mailboxes ?? []);
    const mailboxes = new Map<string, SafetyNetMailboxItem>();
    for (const item of mailboxItems) {
      const email = item.email.toLowerCase();
      const others = item.integrations.filter((i) => i.service !== platform);
      const externalId = wanted.get(email);
      const integrations = externalId === undefined ? others : [...others, { service: platform, externalId }];
      if (integrations.length === 0) {
        deletes.push(keyOf(item));
        continue;
      }
      const next = safetyNetMailboxItem(companyId, {
        ...fieldsOf(item),
        integrations: integrations
          .map(({ service, externalId: id }) => ({ service, externalId: id }))
          .sort(byService),
      });
      if (!sameItem(item, next)) puts.push(next);
      mailboxes.set(email, next);
    }
    for (const [email, externalId] of wanted) {
      if (mailboxes.has(email)) continue;
      const item = safetyNetMailboxItem(companyId, {
        id: stableId(companyId, 'snmbx', email),
        email,
        activated: false,
        integrations: [{ service: platform, externalId }],
      });
      puts.push(item);
      mailboxes.set(email, item);
    }

    // Sequences: this platform's rows replaced; a sequence that stays keeps its switch.
    const rows = ownerRows(lists?.sequences ?? []);
    const sequences: SafetyNetSequenceItem[] = [];
    const activation = new Map<string, boolean>();
    const existing = new Map<string, SafetyNetSequenceItem>();
    for (const item of sequenceItems) {
      if (item.service !== platform) {
        sequences.push(item);
        continue;
      }
      activation.set(item.crmSequenceId, (activation.get(item.crmSequenceId) ?? false) || item.activated);
      existing.set(`${item.crmSequenceId}\u0000${item.owner.email.toLowerCase()}`, item);
    }
    for (const [key, item] of existing) if (!rows.has(key)) deletes.push(keyOf(item));
    for (const [key, row] of rows) {
      const before = existing.get(key);
      const next = safetyNetSequenceItem(companyId, {
        id: before?.id ?? stableId(companyId, 'snseq', `${platform}|${row.crmSequenceId}|${row.owner.email}`),
        service: platform,
        crmSequenceId: row.crmSequenceId,
        name: row.name,
        activated: before?.activated ?? activation.get(row.crmSequenceId) ?? false,
        owner: row.owner,
      });
      if (!before || !sameItem(before, next)) {
        // the owner's case changed: the row's key did not, but write it whole
        puts.push(next);
      }
      sequences.push(next);
    }

    await writeItems({ puts, deletes });
    await Promise.all([
      writeWholeView(companyId, safetyNetMailboxView, [...mailboxes.values()].map(safetyNetMailboxRowOf)),
      writeWholeView(companyId, sequenceView, sequences.map(sequenceRowOf)),
    ]);
    return {
      mailboxes: [...mailboxes.values()].filter((m) => m.integrations.some((i) => i.service === platform))
        .length,
      sequences: rows.size,
      written: puts.length,
      deleted: deletes.length,
    };
  } finally {
    await releaseWorkspaceLock(companyId, token);
  }
}
