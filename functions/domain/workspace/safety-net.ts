// Safety Net mailboxes and sequences: lists, details, and the `activated` switch (docs/api.md). A switch
// writes the item(s) and the packed list view in one transaction guarded by the view's version; a
// sequence is switched for every owner row at once. Setting the value already held writes nothing.
import { z } from 'zod';
import { NotFoundError } from '../../errors';
import { safetyNetMailboxIdIndex, safetyNetSequenceIdIndex, safetyNetSequencePrefix } from '../../store/keys';
import { getByIndex, getItem, queryPrefix, setActivatedWrite, type Item } from '../../store/workspace';
import type { Permitted } from '../accounts/accounts';
import {
  facetOf,
  pageSchema,
  safetyNetMailboxBodySchema,
  safetyNetMailboxView,
  sequenceBodySchema,
  sequenceServices,
  sequenceView,
  type SafetyNetMailboxRow,
  type SequenceRow,
} from './model';
import { booleanParam, enumParam, listQuery } from './query';
import { rebuildSafetyNetMailboxRows, rebuildSequenceRows } from './rebuild';
import { safetyNetMailboxRowOf, sequenceRowOf } from './rows';
import { commitWithRetry } from './transact';
import { allRows, loadView, readPage, replaceRows, viewTransactItems } from './views';

/** Rows of one transaction; the lock check and the view's head and chunks take the rest of the 100. */
const ownerRowsPerTransaction = 90;

export const listSafetyNetMailboxesQuery = listQuery({ activated: booleanParam('activated').optional() });
export type ListSafetyNetMailboxesQuery = z.infer<typeof listSafetyNetMailboxesQuery>;
export const safetyNetMailboxListSchema = pageSchema('mailboxes', safetyNetMailboxBodySchema);

export const listSafetyNetSequencesQuery = listQuery({
  activated: booleanParam('activated').optional(),
  service: enumParam('service', sequenceServices).optional(),
});
export type ListSafetyNetSequencesQuery = z.infer<typeof listSafetyNetSequencesQuery>;
export const safetyNetSequenceListSchema = pageSchema('sequences', sequenceBodySchema);

function safetyNetMailboxBody(row: SafetyNetMailboxRow): z.infer<typeof safetyNetMailboxBodySchema> {
  return { activated: row.activated, email: row.email, id: row.id, integrations: row.integrations };
}

function sequenceBody(row: SequenceRow): z.infer<typeof sequenceBodySchema> {
  return {
    activated: row.activated,
    crmSequenceId: row.crmSequenceId,
    id: row.id,
    name: row.name,
    owner: row.owner,
    service: row.service,
  };
}

export async function listSafetyNetMailboxes(
  companyId: string,
  query: ListSafetyNetMailboxesQuery,
): Promise<z.infer<typeof safetyNetMailboxListSchema>> {
  const page = await readPage(
    companyId,
    safetyNetMailboxView,
    {
      facet: facetOf({ activated: query.activated }),
      matches: (row) => query.activated === undefined || row.activated === query.activated,
    },
    query.offset,
    query.limit,
    () => rebuildSafetyNetMailboxRows(companyId),
  );
  return {
    limit: query.limit,
    offset: query.offset,
    total: page.total,
    mailboxes: page.rows.map(safetyNetMailboxBody),
  };
}

export async function listSafetyNetSequences(
  companyId: string,
  query: ListSafetyNetSequencesQuery,
): Promise<z.infer<typeof safetyNetSequenceListSchema>> {
  const page = await readPage(
    companyId,
    sequenceView,
    {
      facet: facetOf({ activated: query.activated, service: query.service }),
      matches: (row) =>
        (query.activated === undefined || row.activated === query.activated) &&
        (query.service === undefined || row.service === query.service),
    },
    query.offset,
    query.limit,
    () => rebuildSequenceRows(companyId),
  );
  return {
    limit: query.limit,
    offset: query.offset,
    total: page.total,
    sequences: page.rows.map(sequenceBody),
  };
}

/** The item behind an id index entry, read strongly consistent; other companies' ids never resolve. */
async function findById(
  index: { gsi1pk: string; gsi1sk: string },
  id: string,
  notFound: string,
): Promise<Item> {
  const indexed = await getByIndex(index);
  if (!indexed) throw new NotFoundError(notFound);
  const Item = await getItem({ pk: String(indexed.pk), sk: String(indexed.sk) }, true);
  if (!Item || Item.id !== id) throw new NotFoundError(notFound);
  return Item;
}

const mailboxNotFound = 'Safety Net mailbox not found';
const sequenceNotFound = 'Safety Net sequence not found';

export async function getSafetyNetMailbox(companyId: string, id: string) {
  return safetyNetMailboxBody(
    safetyNetMailboxRowOf(await findById(safetyNetMailboxIdIndex(companyId, id), id, mailboxNotFound)),
  );
}

export async function getSafetyNetSequence(companyId: string, id: string) {
  return sequenceBody(
    sequenceRowOf(await findById(safetyNetSequenceIdIndex(companyId, id), id, sequenceNotFound)),
  );
}

/** The stored item's key. */
const keyOf = (item: Item) => ({ pk: String(item.pk), sk: String(item.sk) });

/** No permission needed (docs/api.md). */
export async function patchSafetyNetMailbox(companyId: string, id: string, activated: boolean, now: Date) {
  const item = await findById(safetyNetMailboxIdIndex(companyId, id), id, mailboxNotFound);
  const updated: SafetyNetMailboxRow = { ...safetyNetMailboxRowOf(item), activated };
  if (item.activated === activated) return safetyNetMailboxBody(updated);
  return commitWithRetry(companyId, now, async () => {
    const view = await loadView(companyId, safetyNetMailboxView, () =>
      rebuildSafetyNetMailboxRows(companyId),
    );
    const change = replaceRows(safetyNetMailboxView, view, [updated]);
    return {
      result: safetyNetMailboxBody(updated),
      items: [
        setActivatedWrite(keyOf(item), activated),
        ...viewTransactItems(companyId, safetyNetMailboxView, change),
      ],
    };
  });
}

/** Every owner row of the sequence (same service and crmSequenceId), read strongly consistent. */
async function ownerRows(companyId: string, service: string, crmSequenceId: string): Promise<Item[]> {
  return queryPrefix(companyId, safetyNetSequencePrefix(service, crmSequenceId));
}

/**
 * What switching a sequence to `activated` has to change: its owner rows still holding the other value
 * (`pending`), and whether nothing at all is left to write, in the items or in the list view (a switch
 * to the value already held, or one a half-finished earlier call already wrote).
 */
export function sequenceSwitch(
  ownerItems: Item[],
  viewRows: SequenceRow[],
  sequence: Pick<SequenceRow, 'service' | 'crmSequenceId'>,
  activated: boolean,
): { pending: Item[]; upToDate: boolean } {
  const pending = ownerItems.filter((row) => row.activated !== activated);
  const stale = viewRows.some(
    (row) =>
      row.service === sequence.service &&
      row.crmSequenceId === sequence.crmSequenceId &&
      row.activated !== activated,
  );
  return { pending, upToDate: pending.length === 0 && !stale };
}

/**
 * Needs the creator's toggleSequences permission. Up to 90 owner rows change in one transaction with
 * the view. A sequence with more owners is switched in several transactions, the view last; each is
 * idempotent, so a call that fails half way is completed by repeating it.
 */
export async function patchSafetyNetSequence(
  principal: Permitted<'toggleSequences'>,
  id: string,
  activated: boolean,
  now: Date,
) {
  const { companyId } = principal;
  const item = await findById(safetyNetSequenceIdIndex(companyId, id), id, sequenceNotFound);
  const updated: SequenceRow = { ...sequenceRowOf(item), activated };
  return commitWithRetry(companyId, now, async () => {
    const rows = await ownerRows(companyId, String(item.service), String(item.crmSequenceId));
    const view = await loadView(companyId, sequenceView, () => rebuildSequenceRows(companyId));
    const { pending, upToDate } = sequenceSwitch(rows, allRows(view), updated, activated);
    if (upToDate) return { items: null, result: sequenceBody(updated) };
    while (pending.length > ownerRowsPerTransaction) {
      const batch = pending.splice(0, ownerRowsPerTransaction);
      await commitWithRetry(companyId, now, async () => ({
        result: null,
        items: batch.map((row) => setActivatedWrite(keyOf(row), activated)),
      }));
    }
    const change = replaceRows(
      sequenceView,
      view,
      rows.map((row) => ({ ...sequenceRowOf(row), activated })),
    );
    return {
      result: sequenceBody(updated),
      items: [
        ...pending.map((row) => setActivatedWrite(keyOf(row), activated)),
        ...viewTransactItems(companyId, sequenceView, change),
      ],
    };
  });
}
