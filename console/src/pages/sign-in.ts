// Sign in with an API key: checked against the API before it is kept (sessionStorage only).
import { useState } from 'preact/hooks';
import { ApiError, createApi } from '../api';
import { html } from '../html';
import { saveKey } from '../session';
import { ErrorMessage, PageTitle, valueTo } from '../ui';

export function SignIn({ apiUrl, onSignedIn }: { apiUrl: string; onSignedIn: (key: string) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const trimmed = key.trim();
    if (!trimmed) return setError(new Error('Enter your API key.'));
    setBusy(true);
    setError(undefined);
    try {
      await createApi({ baseUrl: apiUrl, apiKey: trimmed }).checkKey();
      saveKey(trimmed);
      onSignedIn(trimmed);
    } catch (e) {
      setError(
        e instanceof ApiError && (e.status === 401 || e.status === 403)
          ? new Error('That API key was not accepted. Check it and try again.')
          : e,
      );
    } finally {
      setBusy(false);
    }
  };

  return html`<main id="main" class="sign-in">
    <${PageTitle}>mailvet console<//>
    <p>Sign in with your company's API key. It stays in this browser tab and is sent only to the API.</p>
    <form onSubmit=${submit}>
      <label for="api-key">API key</label>
      <input
        id="api-key"
        name="api-key"
        type="password"
        autocomplete="off"
        value=${key}
        onInput=${valueTo(setKey)}
        aria-invalid=${error ? 'true' : undefined}
        aria-describedby=${error ? 'sign-in-error' : undefined}
      />
      <button type="submit" disabled=${busy}>${busy ? 'Checking…' : 'Sign in'}</button>
      <div id="sign-in-error"><${ErrorMessage} error=${error} /></div>
    </form>
    ${
      !apiUrl &&
      html`<p class="muted">
        On this local runtime the API reference is at <a href="/docs">/docs</a>;${' '}try the key${' '}
        <code>demo-admin-key</code>.
      </p>`
    }
  </main>`;
}
