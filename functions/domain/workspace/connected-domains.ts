// Connected domains: derived from connected mailboxes by the import (docs/workspace.md). A domain's
// daily reputation is the rounded mean of its mailboxes' values that day, stored as yearly rollups,
// so a domain's history costs one or two reads however many mailboxes it has.
import { z } from 'zod';
import { NotFoundError } from '../../errors';
import { readConnectedDomain, readDomainReputationBlocks } from '../../store/workspace';
import type { DateWindow } from './dates';
import { domainRowSchema, domainView, historyFields, pageSchema } from './model';
import { listQuery } from './query';
import { rebuildDomainRows } from './rebuild';
import { history, windowMean, yearsOf, type YearBlocks } from './series';
import { allFacet, readPage } from './views';

export const listConnectedDomainsQuery = listQuery({});
export type ListConnectedDomainsQuery = z.infer<typeof listConnectedDomainsQuery>;

export const connectedDomainListSchema = pageSchema('domains', domainRowSchema);
export const connectedDomainSchema = domainRowSchema.extend(historyFields);

export async function listConnectedDomains(
  companyId: string,
  query: ListConnectedDomainsQuery,
): Promise<z.infer<typeof connectedDomainListSchema>> {
  const page = await readPage(
    companyId,
    domainView,
    { facet: allFacet, matches: () => true },
    query.offset,
    query.limit,
    () => rebuildDomainRows(companyId),
  );
  return { limit: query.limit, offset: query.offset, total: page.total, domains: page.rows };
}

export async function getConnectedDomain(
  companyId: string,
  domainName: string,
  window: DateWindow,
): Promise<z.infer<typeof connectedDomainSchema>> {
  const domain = domainName.trim().toLowerCase();
  const item = await readConnectedDomain(companyId, domain);
  if (!item) throw new NotFoundError('Connected domain not found');
  const years = yearsOf(window.startDate, window.endDate);
  const blocks: YearBlocks = new Map();
  for (const block of await readDomainReputationBlocks(companyId, domain, years))
    blocks.set(block.year, block.days);
  return {
    domain,
    mailboxCount: item.mailboxCount,
    currentReputation: item.currentReputation,
    startDate: window.startDate,
    endDate: window.endDate,
    reputation: windowMean(blocks, window.startDate, window.endDate),
    history: history(blocks, window.startDate, window.endDate),
  };
}
