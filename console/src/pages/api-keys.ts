// An admin's own API keys: create one (the key is shown once, here), see the hints, revoke. Members are
// told that keys are for admins.
import { useState } from 'preact/hooks';
import { ApiError, type Api, type ApiKey } from '../api';
import { html } from '../html';
import { ErrorMessage, formatDate, Loading, PageTitle, useLoad, valueTo } from '../ui';

export function ApiKeysPage({ api }: { api: Api }) {
  const keys = useLoad(() => api.listApiKeys(), [api]);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<ApiKey & { key: string }>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const create = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setCreated(undefined);
    if (!name.trim()) return setError(new Error('Name the key (what will use it, e.g. "CRM sync").'));
    setBusy(true);
    try {
      setCreated(await api.createApiKey(name.trim()));
      setName('');
      keys.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const revoke = async (key: ApiKey) => {
    if (!window.confirm(`Revoke "${key.name}" (${key.hint}…)? Requests with it are refused from now on.`))
      return;
    setError(undefined);
    try {
      await api.revokeApiKey(key.id);
      keys.reload();
    } catch (e) {
      setError(e);
    }
  };

  if (keys.error instanceof ApiError && keys.error.status === 403)
    return html`<section>
      <${PageTitle}>API keys<//>
      <p>Only an admin of your workspace can create and revoke API keys. Ask one if you need a key.</p>
    </section>`;

  return html`<section>
    <${PageTitle}>API keys<//>
    <p class="muted">Your own keys, for code that calls the API. A key is shown once, when you create it.</p>
    ${keys.loading && !keys.data && html`<${Loading} what="keys" />`}
    <${ErrorMessage} error=${keys.error} />
    ${
      keys.data &&
      html`<table data-testid="api-keys">
        <caption class="visually-hidden">
          Your API keys
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Starts with</th>
            <th scope="col">Created</th>
            <th scope="col">Status</th>
            <th scope="col"><span class="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          ${
            keys.data.apiKeys.length === 0 &&
            html`<tr>
              <td colspan="5" class="muted">No keys yet.</td>
            </tr>`
          }
          ${keys.data.apiKeys.map(
            (key) =>
              html`<tr>
                <td>${key.name}</td>
                <td><code>${key.hint}…</code></td>
                <td>${formatDate(key.createdAt)}</td>
                <td>${key.revokedAt ? `revoked ${formatDate(key.revokedAt)}` : 'active'}</td>
                <td>
                  ${!key.revokedAt && html`<button type="button" class="link" onClick=${() => revoke(key)}>Revoke</button>`}
                </td>
              </tr>`,
          )}
        </tbody>
      </table>`
    }
    <form class="card" onSubmit=${create} aria-labelledby="new-key-title">
      <h2 id="new-key-title">Create a key</h2>
      <div class="field">
        <label for="key-name">Name</label>
        <input id="key-name" type="text" value=${name} onInput=${valueTo(setName)} />
      </div>
      <button type="submit" disabled=${busy}>${busy ? 'Creating…' : 'Create key'}</button>
      <${ErrorMessage} error=${error} />
      ${
        created &&
        html`<div class="ok" role="status">
          <p>Copy this key now: it is not shown again.</p>
          <code data-testid="new-key">${created.key}</code>
        </div>`
      }
    </form>
  </section>`;
}
