// Connected mailboxes: the list with window reputation, and the detail with its daily history.
// A list page reads the packed mailbox view (filter, total, page) and then only the page's yearly
// reputation blocks: cost grows with the page and the mailbox count, never with the history's length.
import { z } from 'zod';
import { NotFoundError } from '../../errors';
import { findConnectedMailbox, readMailboxReputationBlocks } from '../../store/workspace';
import type { DateWindow, ReputationRange } from './dates';
import { rebuildMailboxRows } from './rebuild';
import {
  connectionStatuses,
  facetOf,
  historyFields,
  mailboxBodySchema,
  mailboxView,
  pageSchema,
  reputationRangeSchema,
  type ConnectionStatus,
  type MailboxRow,
} from './model';
import { enumParam, listQuery, reputationRangeParam } from './query';
import { history, windowMean, yearsOf, type YearBlocks } from './series';
import { mailboxRowOf } from './rows';
import { readPage } from './views';

export const listConnectedMailboxesQuery = listQuery({
  connectionStatus: enumParam('connectionStatus', connectionStatuses).optional(),
  reputationRange: reputationRangeParam,
});

export const connectedMailboxListSchema = pageSchema(
  'mailboxes',
  mailboxBodySchema.extend({ reputation: historyFields.reputation }),
).extend({ reputationRange: reputationRangeSchema });

export const connectedMailboxSchema = mailboxBodySchema.extend({
  currentReputation: historyFields.reputation.describe('The latest known day'),
  ...historyFields,
});

export interface MailboxListQuery {
  limit: number;
  offset: number;
  connectionStatus?: ConnectionStatus;
  range: ReputationRange;
}

/** Year blocks of several mailboxes for a window: one BatchGet of (mailboxes x years) keys. */
async function reputationBlocks(
  companyId: string,
  ids: string[],
  window: DateWindow,
): Promise<Map<string, YearBlocks>> {
  const years = yearsOf(window.startDate, window.endDate);
  const out = new Map<string, YearBlocks>(ids.map((id) => [id, new Map()]));
  for (const block of await readMailboxReputationBlocks(companyId, ids, years))
    out.get(block.mailboxId)?.set(block.year, block.days);
  return out;
}

export async function listConnectedMailboxes(
  companyId: string,
  query: MailboxListQuery,
): Promise<z.infer<typeof connectedMailboxListSchema>> {
  const { total, rows: page } = await readPage(
    companyId,
    mailboxView,
    {
      facet: facetOf({ connectionStatus: query.connectionStatus }),
      matches: (row) =>
        query.connectionStatus === undefined || row.connectionStatus === query.connectionStatus,
    },
    query.offset,
    query.limit,
    () => rebuildMailboxRows(companyId),
  );
  const blocks = await reputationBlocks(
    companyId,
    page.map((row) => row.id),
    query.range,
  );
  return {
    limit: query.limit,
    offset: query.offset,
    total,
    reputationRange: query.range,
    mailboxes: page.map((row) => ({
      ...mailboxBody(row),
      reputation: windowMean(blocks.get(row.id) ?? new Map(), query.range.startDate, query.range.endDate),
    })),
  };
}

function mailboxBody(row: MailboxRow) {
  return {
    connectedAt: row.connectedAt,
    connectionStatus: row.connectionStatus,
    domain: row.domain,
    email: row.email,
    id: row.id,
    owner: row.owner,
    provider: row.provider,
    statusUpdatedAt: row.statusUpdatedAt,
  };
}

export async function getConnectedMailbox(
  companyId: string,
  id: string,
  window: DateWindow,
): Promise<z.infer<typeof connectedMailboxSchema>> {
  const item = await findConnectedMailbox(companyId, id);
  if (!item) throw new NotFoundError('Connected mailbox not found');
  const blocks = (await reputationBlocks(companyId, [id], window)).get(id) ?? new Map();
  return {
    ...mailboxBody(mailboxRowOf(item)),
    currentReputation: item.currentReputation,
    startDate: window.startDate,
    endDate: window.endDate,
    reputation: windowMean(blocks, window.startDate, window.endDate),
    history: history(blocks, window.startDate, window.endDate),
  };
}
