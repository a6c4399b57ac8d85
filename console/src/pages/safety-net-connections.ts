// The Safety Net page's upper half: the platform connections (connect through the platform's consent
// page, sync, disconnect; state and last sync), the emails the Safety Net stopped with their reasons,
// and the allowlist (admin).
import { useState } from 'preact/hooks';
import { ApiError, type Api } from '../api';
import { html } from '../html';
import { ListView, usePagedList, type Column } from '../list';
import type { Integration, Platform, Prevention } from '../safety-net-api';
import { ErrorMessage, Loading, useLoad, valueTo } from '../ui';
import { reasonText, statusWords } from '../words';

const platforms: { platform: Platform; name: string }[] = [
  { platform: 'outreach', name: 'Outreach' },
  { platform: 'salesloft', name: 'Salesloft' },
];

const stateWords: Record<Integration['status'], string> = {
  connected: 'Connected',
  syncing: 'Syncing…',
  grant_error: 'Access revoked or expired: connect again',
};

const statusLabel = (status: string) =>
  (statusWords as Record<string, { label: string }>)[status]?.label ?? status;

const when = (iso: string | null) =>
  iso ? new Date(iso).toLocaleString('en-GB', { timeZone: 'UTC' }) + ' UTC' : 'never';

const adminOnly = (e: unknown) =>
  e instanceof ApiError && e.status === 403 && e.message !== 'Invalid API key'
    ? new Error('Only an admin may change the connections and the allowlist.')
    : e;

export function Connections({ api }: { api: Api }) {
  const list = useLoad(() => api.listIntegrations(), []);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState<string>();
  const act = (what: string, run: () => Promise<unknown>) => async () => {
    setBusy(what);
    setError(undefined);
    try {
      await run();
      list.reload();
    } catch (e) {
      setError(adminOnly(e));
    } finally {
      setBusy(undefined);
    }
  };
  const byPlatform = new Map((list.data?.integrations ?? []).map((i) => [i.platform, i]));
  return html`<h2>Connections</h2>
    <${ErrorMessage} error=${list.error ?? error} />
    ${list.loading && !list.data && html`<${Loading} what="connections" />`}
    ${
      list.data &&
      html`<ul class="connections" data-testid="safety-net-connections">
        ${platforms.map(({ platform, name }) => {
          const connection = byPlatform.get(platform);
          return html`<li data-platform=${platform}>
            <strong>${name}</strong>
            ${
              connection
                ? html`<span class=${connection.status === 'grant_error' ? 'error' : ''}>
                      ${stateWords[connection.status]}
                    </span>
                    <span class="muted">· last sync ${when(connection.lastSyncAt)}</span>
                    ${connection.lastSyncError && html`<span class="error"> · ${connection.lastSyncError}</span>`}
                    <button
                      type="button"
                      disabled=${busy !== undefined}
                      onClick=${act(`sync-${platform}`, () => api.syncIntegration(platform))}
                    >
                      Sync now
                    </button>
                    <button
                      type="button"
                      disabled=${busy !== undefined}
                      onClick=${act(`disconnect-${platform}`, async () => {
                        if (
                          window.confirm(
                            `Disconnect ${name}? Its mailboxes and sequences leave the Safety Net lists.`,
                          )
                        )
                          await api.disconnectIntegration(platform);
                      })}
                    >
                      Disconnect
                    </button>`
                : html`<span class="muted">Not connected</span>
                    <button
                      type="button"
                      disabled=${busy !== undefined}
                      onClick=${act(`connect-${platform}`, async () => {
                        const { authorizeUrl } = await api.connectIntegration(platform);
                        window.location.assign(authorizeUrl);
                      })}
                    >
                      Connect ${name}
                    </button>`
            }
          </li>`;
        })}
      </ul>`
    }`;
}

export function Preventions({ api }: { api: Api }) {
  const list = usePagedList((page) => api.listPreventions(page), []);
  const columns: Column<Prevention>[] = [
    { title: 'Prospect', cell: (p) => p.prospectEmail, rowHeader: true },
    { title: 'Sending mailbox', cell: (p) => p.mailbox },
    {
      title: 'Reason',
      cell: (p) =>
        html`<span title=${p.explanation}>${`${statusLabel(p.status)}: ${reasonText(p.reason)}`}</span>`,
    },
    { title: 'Sequence', cell: (p) => (p.sequence ? `${p.sequence.name} (${p.platform})` : p.platform) },
    { title: 'Stopped', cell: (p) => when(p.createdAt) },
  ];
  return html`<h2>Emails stopped</h2>
    <${ListView}
      list=${list}
      rowsOf=${(data: { preventions: Prevention[] }) => data.preventions}
      what="prevented emails"
      label="Emails the Safety Net stopped"
      columns=${columns}
      testId="safety-net-preventions"
      empty="The Safety Net has not stopped any email yet."
    />`;
}

export function Allowlist({ api }: { api: Api }) {
  const list = useLoad(() => api.getAllowlist(), []);
  const [email, setEmail] = useState('');
  const [error, setError] = useState<unknown>();
  const change = (run: () => Promise<void>) => async () => {
    setError(undefined);
    try {
      await run();
      list.reload();
    } catch (e) {
      setError(adminOnly(e));
    }
  };
  const refused = list.error instanceof ApiError && list.error.status === 403;
  return html`<h2>Allowlist</h2>
    <p class="muted">Addresses the Safety Net never stops, whatever their verdict.</p>
    ${refused ? html`<p class="muted">Only an admin can see and change the allowlist.</p>` : html`<${ErrorMessage} error=${list.error} />`}
    <${ErrorMessage} error=${error} />
    ${
      list.data &&
      html`<ul class="safety-net-allowlist" data-testid="safety-net-allowlist">
          ${list.data.emails.map(
            (e) =>
              html`<li>
                ${e}
                <button
                  type="button"
                  aria-label=${`Remove ${e}`}
                  onClick=${change(() => api.disallowEmail(e))}
                >
                  Remove
                </button>
              </li>`,
          )}
        </ul>
        <form
          onSubmit=${(event: Event) => {
            event.preventDefault();
            if (email.trim())
              void change(async () => {
                await api.allowEmail(email.trim());
                setEmail('');
              })();
          }}
        >
          <label>Address <input type="email" value=${email} onInput=${valueTo(setEmail)} required /></label>
          <button type="submit">Allow</button>
        </form>`
    }`;
}
