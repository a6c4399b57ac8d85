// A forgotten password: ask for a link (#/forgot-password; the same answer for any address), then
// choose a new password on the page the emailed link opens (#/reset-password/<token>).
import { useState } from 'preact/hooks';
import { html } from '../html';
import { AcceptError, confirmPasswordReset, requestPasswordReset } from '../people';
import { ErrorMessage, PageTitle, valueTo } from '../ui';

export function ForgotPasswordPage({ apiUrl }: { apiUrl: string }) {
  const [email, setEmail] = useState('');
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    if (!email.trim()) return setError(new Error('Enter the email you sign in with.'));
    setBusy(true);
    try {
      setDone((await requestPasswordReset(apiUrl, email.trim())).message);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return html`<main id="main" class="sign-in">
    <${PageTitle}>Forgotten password<//>
    <p>We email you a link to choose a new password. It works once, for an hour.</p>
    <form onSubmit=${submit}>
      <label for="forgot-email">Email</label>
      <input
        id="forgot-email"
        type="email"
        autocomplete="username"
        value=${email}
        onInput=${valueTo(setEmail)}
      />
      <button type="submit" disabled=${busy}>${busy ? 'Sending…' : 'Email me a link'}</button>
      <${ErrorMessage} error=${error} />
      ${done && html`<p class="ok" role="status">${done}.</p>`}
    </form>
    <p><a href="#/">Back to sign in</a></p>
  </main>`;
}

export function ResetPasswordPage({ apiUrl, token }: { apiUrl: string; token: string }) {
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    if (!password) return setError(new Error('Choose a password.'));
    if (password !== repeat) return setError(new Error('The two passwords differ. Type the same one twice.'));
    setBusy(true);
    try {
      setDone((await confirmPasswordReset(apiUrl, token, password)).message);
    } catch (e) {
      setError(
        e instanceof AcceptError && e.status === 410
          ? new Error('This link is no longer valid: it was used, or it expired. Ask for a new one.')
          : e,
      );
    } finally {
      setBusy(false);
    }
  };

  return html`<main id="main" class="sign-in">
    <${PageTitle}>Choose a new password<//>
    ${
      done
        ? html`<p class="ok" role="status">${done}.</p>
            <p><a href="#/">Sign in</a></p>`
        : html`<form onSubmit=${submit}>
            <label for="reset-password">New password</label>
            <input
              id="reset-password"
              type="password"
              autocomplete="new-password"
              aria-describedby="reset-rules"
              value=${password}
              onInput=${valueTo(setPassword)}
            />
            <p id="reset-rules" class="muted">
              At least 12 characters, with a lower-case letter, an upper-case letter, a digit and a symbol.
            </p>
            <label for="reset-repeat">New password again</label>
            <input
              id="reset-repeat"
              type="password"
              autocomplete="new-password"
              value=${repeat}
              onInput=${valueTo(setRepeat)}
            />
            <button type="submit" disabled=${busy}>${busy ? 'Saving…' : 'Set the password'}</button>
            <${ErrorMessage} error=${error} />
            <p><a href="#/forgot-password">Ask for a new link</a></p>
          </form>`
    }
  </main>`;
}
