// Connected sending domains: current reputation and how many mailboxes send from each.
import type { Api, Domain } from '../api';
import { html } from '../html';
import { ListView, usePagedList, type Column } from '../list';
import { PageTitle } from '../ui';

const columns: Column<Domain>[] = [
  { title: 'Domain', cell: (d) => d.domain },
  { title: 'Current reputation', cell: (d) => d.currentReputation ?? 'no data', num: true },
  { title: 'Mailboxes', cell: (d) => d.mailboxCount, num: true },
];

export function DomainsPage({ api }: { api: Api }) {
  const list = usePagedList((page) => api.listDomains(page), []);
  return html`<section>
    <${PageTitle}>Domains<//>
    <${ListView}
      list=${list}
      rowsOf=${(data: { domains: Domain[] }) => data.domains}
      what="domains"
      label="Domains"
      columns=${columns}
      empty="No connected domains."
    />
  </section>`;
}
