// Safety Net mailboxes and sequences: lists, details, and the `activated` switch (docs/api.md). A switch
// writes the item(s) and the packed list view in one transaction guarded by the view's version; a
// sequence is switched for every owner row at once. Setting the value already held writes nothing.
import { z } from 'zod';
import { NotFoundError } from '../../errors';
import type { SafetyNetSequenceItem } from '../../store/entities/workspace';
import {
  findSafetyNetMailbox,
  findSafetyNetSequence,
  readSafetyNetSequences,
  setActivatedWrite,
} from '../../store/workspace';
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

const mailboxNotFound = 'Safety Net mailbox not found';
const sequenceNotFound = 'Safety Net sequence not found';

/** The Safety Net mailbox with this id in this company, or NotFoundError. */
async function safetyNetMailboxOf(companyId: string, id: string) {
  const item = await findSafetyNetMailbox(companyId, id);
  if (!item) throw new NotFoundError(mailboxNotFound);
  return item;
}

/** The sequence row with this id in this company, or NotFoundError. */
async function sequenceOf(companyId: string, id: string) {
  const item = await findSafetyNetSequence(companyId, id);
  if (!item) throw new NotFoundError(sequenceNotFound);
  return item;
}

export async function getSafetyNetMailbox(companyId: string, id: string) {
  return safetyNetMailboxBody(safetyNetMailboxRowOf(await safetyNetMailboxOf(companyId, id)));
}

export async function getSafetyNetSequence(companyId: string, id: string) {
  return sequenceBody(sequenceRowOf(await sequenceOf(companyId, id)));
}

/** No permission needed (docs/api.md). */
export async function patchSafetyNetMailbox(companyId: string, id: string, activated: boolean, now: Date) {
  const item = await safetyNetMailboxOf(companyId, id);
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
        setActivatedWrite(item, activated),
        ...viewTransactItems(companyId, safetyNetMailboxView, change),
      ],
    };
  });
}

/**
 * What switching a sequence to `activated` has to change: its owner rows still holding the other value
 * (`pending`), and whether nothing at all is left to write, in the items or in the list view (a switch
 * to the value already held, or one a half-finished earlier call already wrote).
 */
export function sequenceSwitch<Owner extends Pick<SafetyNetSequenceItem, 'activated'>>(
  ownerItems: Owner[],
  viewRows: SequenceRow[],
  sequence: Pick<SequenceRow, 'service' | 'crmSequenceId'>,
  activated: boolean,
): { pending: Owner[]; upToDate: boolean } {
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
  const item = await sequenceOf(companyId, id);
  const updated: SequenceRow = { ...sequenceRowOf(item), activated };
  return commitWithRetry(companyId, now, async () => {
    // every owner row of the sequence, read strongly consistent
    const rows = await readSafetyNetSequences(companyId, {
      service: item.service,
      crmSequenceId: item.crmSequenceId,
    });
    const view = await loadView(companyId, sequenceView, () => rebuildSequenceRows(companyId));
    const { pending, upToDate } = sequenceSwitch(rows, allRows(view), updated, activated);
    if (upToDate) return { items: null, result: sequenceBody(updated) };
    while (pending.length > ownerRowsPerTransaction) {
      const batch = pending.splice(0, ownerRowsPerTransaction);
      await commitWithRetry(companyId, now, async () => ({
        result: null,
        items: batch.map((row) => setActivatedWrite(row, activated)),
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
        ...pending.map((row) => setActivatedWrite(row, activated)),
        ...viewTransactItems(companyId, sequenceView, change),
      ],
    };
  });
}
