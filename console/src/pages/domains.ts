// Connected sending domains: current reputation and how many mailboxes send from each.
import { useState } from 'preact/hooks';
import type { Api } from '../api';
import { html } from '../html';
import { ErrorMessage, Loading, PageTitle, Pager, useLoad } from '../ui';

const pageSize = 50;

export function DomainsPage({ api }: { api: Api }) {
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => api.listDomains({ limit: pageSize, offset }), [offset]);
  return html`<section>
    <${PageTitle}>Domains<//>
    <${ErrorMessage} error=${list.error} />
    ${list.loading && !list.data && html`<${Loading} what="domains" />`}
    ${
      list.data &&
      (list.data.domains.length
        ? html`<div class="table-scroll" tabindex="0" role="region" aria-label="Domains">
            <table>
              <thead>
                <tr>
                  <th scope="col">Domain</th>
                  <th scope="col">Current reputation</th>
                  <th scope="col">Mailboxes</th>
                </tr>
              </thead>
              <tbody>
                ${list.data.domains.map(
                  (d) =>
                    html`<tr>
                      <th scope="row">${d.domain}</th>
                      <td class="num">${d.currentReputation ?? 'no data'}</td>
                      <td class="num">${d.mailboxCount}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
        : html`<p>No connected domains.</p>`)
    }
    ${
      list.data &&
      html`<${Pager}
        label="Domains"
        offset=${offset}
        limit=${pageSize}
        total=${list.data.total}
        onChange=${setOffset}
      />`
    }
  </section>`;
}
