// Safety Net: the mailboxes and sequences synced from Outreach and Salesloft, each with its switch.
import { useState } from 'preact/hooks';
import { ApiError, type Api } from '../api';
import { html } from '../html';
import { ErrorMessage, Loading, PageTitle, Pager, useLoad } from '../ui';

const pageSize = 50;

function Toggle({
  id,
  label,
  checked,
  onToggle,
}: {
  id: string;
  label: string;
  checked: boolean;
  onToggle: (next: boolean) => Promise<void>;
}) {
  const [busy, setBusy] = useState(false);
  return html`<button
    type="button"
    role="switch"
    id=${id}
    class=${`switch ${checked ? 'on' : ''}`}
    aria-checked=${checked ? 'true' : 'false'}
    aria-label=${label}
    disabled=${busy}
    onClick=${async () => {
      setBusy(true);
      try {
        await onToggle(!checked);
      } finally {
        setBusy(false);
      }
    }}
  >
    <span aria-hidden="true">${checked ? 'On' : 'Off'}</span>
  </button>`;
}

export function SafetyNetPage({ api }: { api: Api }) {
  return html`<section>
    <${PageTitle}>Safety Net<//>
    <p class="muted">
      Mailboxes and sequences synced from your sales-engagement platforms. Switch the Safety Net on or off for
      each.
    </p>
    <${Mailboxes} api=${api} />
    <${Sequences} api=${api} />
  </section>`;
}

function Mailboxes({ api }: { api: Api }) {
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => api.listSafetyNetMailboxes({ limit: pageSize, offset }), [offset]);
  const [overrides, setOverrides] = useState<Record<string, boolean>>({});
  const [error, setError] = useState<unknown>();
  return html`<h2>Mailboxes</h2>
    <${ErrorMessage} error=${list.error ?? error} />
    ${list.loading && !list.data && html`<${Loading} what="Safety Net mailboxes" />`}
    ${
      list.data &&
      html`<div class="table-scroll" tabindex="0" role="region" aria-label="Safety Net mailboxes">
        <table data-testid="safety-net-mailboxes">
          <thead>
            <tr>
              <th scope="col">Mailbox</th>
              <th scope="col">Platforms</th>
              <th scope="col">Safety Net</th>
            </tr>
          </thead>
          <tbody>
            ${list.data.mailboxes.map(
              (m) =>
                html`<tr>
                  <th scope="row">${m.email}</th>
                  <td>${m.integrations.map((i) => i.service).join(', ')}</td>
                  <td>
                    <${Toggle}
                      id=${`sn-mailbox-${m.id}`}
                      label=${`Safety Net for ${m.email}`}
                      checked=${overrides[m.id] ?? m.activated}
                      onToggle=${async (next: boolean) => {
                        setError(undefined);
                        try {
                          const updated = await api.setSafetyNetMailbox(m.id, next);
                          setOverrides((o) => ({ ...o, [m.id]: updated.activated }));
                        } catch (e) {
                          setError(e);
                        }
                      }}
                    />
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>`
    }
    ${
      list.data &&
      html`<${Pager}
        label="Safety Net mailboxes"
        offset=${offset}
        limit=${pageSize}
        total=${list.data.total}
        onChange=${setOffset}
      />`
    }`;
}

function Sequences({ api }: { api: Api }) {
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => api.listSequences({ limit: pageSize, offset }), [offset]);
  const [overrides, setOverrides] = useState<Record<string, boolean>>({});
  const [error, setError] = useState<unknown>();
  return html`<h2>Sequences</h2>
    <${ErrorMessage} error=${list.error ?? error} />
    ${list.loading && !list.data && html`<${Loading} what="sequences" />`}
    ${
      list.data &&
      html`<div class="table-scroll" tabindex="0" role="region" aria-label="Safety Net sequences">
        <table data-testid="safety-net-sequences">
          <thead>
            <tr>
              <th scope="col">Sequence</th>
              <th scope="col">Owner</th>
              <th scope="col">Platform</th>
              <th scope="col">Safety Net</th>
            </tr>
          </thead>
          <tbody>
            ${list.data.sequences.map(
              (s) =>
                html`<tr>
                  <th scope="row">${s.name} <span class="muted">#${s.crmSequenceId}</span></th>
                  <td>${s.owner.firstName} ${s.owner.lastName}</td>
                  <td>${s.service}</td>
                  <td>
                    <${Toggle}
                      id=${`sn-sequence-${s.id}`}
                      label=${`Safety Net for ${s.name} (${s.owner.firstName} ${s.owner.lastName})`}
                      checked=${overrides[s.crmSequenceId + s.service] ?? s.activated}
                      onToggle=${async (next: boolean) => {
                        setError(undefined);
                        try {
                          const updated = await api.setSequence(s.id, next);
                          // One call switches the sequence for every owner it appears under.
                          setOverrides((o) => ({ ...o, [s.crmSequenceId + s.service]: updated.activated }));
                        } catch (e) {
                          setError(
                            e instanceof ApiError && e.status === 403 && e.message !== 'Invalid API key'
                              ? new Error(
                                  'This API key cannot switch sequences: its creator lacks the permission. Ask an admin.',
                                )
                              : e,
                          );
                        }
                      }}
                    />
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>`
    }
    ${
      list.data &&
      html`<${Pager}
        label="Sequences"
        offset=${offset}
        limit=${pageSize}
        total=${list.data.total}
        onChange=${setOffset}
      />`
    }`;
}
