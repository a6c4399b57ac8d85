// Sign in as a person (email and password, checked by the user pool) or with an API key (checked
// against the API before it is kept). Either stays in this tab's sessionStorage only.
import { useState } from 'preact/hooks';
import { ApiError, createApi } from '../api';
import type { PeopleConfig } from '../config';
import { html } from '../html';
import { signInWithPassword } from '../people';
import { saveCredentials, type Credentials } from '../session';
import { ErrorMessage, PageTitle, valueTo } from '../ui';

interface SignInProps {
  apiUrl: string;
  people?: PeopleConfig;
  onSignedIn: (credentials: Credentials) => void;
  /** Why the last session ended (an expired token), said above the form. */
  notice?: string;
}

export function SignIn({ apiUrl, people, onSignedIn, notice }: SignInProps) {
  return html`<main id="main" class="sign-in">
    <${PageTitle}>mailvet console<//>
    ${notice && html`<p class="notice" role="status">${notice}</p>`}
    ${people && html`<${PersonSignIn} people=${people} onSignedIn=${onSignedIn} />`}
    <${KeySignIn} apiUrl=${apiUrl} onSignedIn=${onSignedIn} secondary=${people !== undefined} />
    ${
      !apiUrl &&
      html`<p class="muted">
        On this local runtime the API reference is at <a href="/docs">/docs</a>;${' '}try the key${' '}
        <code>demo-admin-key</code>${people ? html`, or a demo person of the README` : ''}.
      </p>`
    }
  </main>`;
}

function PersonSignIn({
  people,
  onSignedIn,
}: {
  people: PeopleConfig;
  onSignedIn: SignInProps['onSignedIn'];
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!email.trim() || !password) return setError(new Error('Enter your email and your password.'));
    setBusy(true);
    setError(undefined);
    try {
      const { accessToken, expiresAt } = await signInWithPassword(
        people,
        email.trim().toLowerCase(),
        password,
      );
      const credentials = { accessToken, expiresAt, email: email.trim().toLowerCase() };
      saveCredentials(credentials);
      onSignedIn(credentials);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return html`<form onSubmit=${submit}>
    <h2 id="person-title">Sign in with your email</h2>
    <label for="sign-in-email">Email</label>
    <input
      id="sign-in-email"
      type="email"
      autocomplete="username"
      value=${email}
      onInput=${valueTo(setEmail)}
    />
    <label for="sign-in-password">Password</label>
    <input
      id="sign-in-password"
      type="password"
      autocomplete="current-password"
      value=${password}
      onInput=${valueTo(setPassword)}
      aria-invalid=${error ? 'true' : undefined}
      aria-describedby=${error ? 'person-error' : undefined}
    />
    <button type="submit" disabled=${busy}>${busy ? 'Signing in…' : 'Sign in'}</button>
    <div id="person-error"><${ErrorMessage} error=${error} /></div>
    <p><a href="#/forgot-password">Forgotten your password?</a></p>
  </form>`;
}

function KeySignIn({
  apiUrl,
  onSignedIn,
  secondary,
}: {
  apiUrl: string;
  onSignedIn: SignInProps['onSignedIn'];
  secondary: boolean;
}) {
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
      saveCredentials({ apiKey: trimmed });
      onSignedIn({ apiKey: trimmed });
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

  return html`<form onSubmit=${submit}>
    <h2 id="key-title">${secondary ? 'Or sign in with an API key' : 'Sign in with an API key'}</h2>
    <p>Your company's API key stays in this browser tab and is sent only to the API.</p>
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
    <button type="submit" disabled=${busy}>${busy ? 'Checking…' : 'Sign in with the key'}</button>
    <div id="sign-in-error"><${ErrorMessage} error=${error} /></div>
  </form>`;
}
