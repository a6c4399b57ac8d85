// The page an invite email's link opens (#/accept-invite/<token>): choose a name and a password, and
// the invite becomes your user; then you are signed in. A used, expired or replaced link says so.
import { useState } from 'preact/hooks';
import type { PeopleConfig } from '../config';
import { html } from '../html';
import { AcceptError, acceptInvite, signInWithPassword } from '../people';
import { saveCredentials, type Credentials } from '../session';
import { ErrorMessage, PageTitle, valueTo } from '../ui';

const goneAdvice =
  'This invite link is no longer valid: it was used already, it expired, or a newer invite replaced ' +
  'it. Ask an admin of your workspace to invite you again.';

export function AcceptInvitePage({
  apiUrl,
  people,
  token,
  onSignedIn,
}: {
  apiUrl: string;
  people?: PeopleConfig;
  token: string;
  onSignedIn: (credentials: Credentials) => void;
}) {
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<unknown>();
  const [gone, setGone] = useState(false);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    if (!password) return setError(new Error('Choose a password.'));
    if (password !== repeat) return setError(new Error('The two passwords differ. Type the same one twice.'));
    setBusy(true);
    try {
      const user = await acceptInvite(apiUrl, {
        token,
        password,
        ...(name.trim() ? { name: name.trim() } : {}),
      });
      if (people) {
        const { accessToken, expiresAt } = await signInWithPassword(people, user.email, password);
        const credentials = { accessToken, expiresAt, email: user.email };
        saveCredentials(credentials);
        window.location.hash = '#/users';
        onSignedIn(credentials);
      }
    } catch (e) {
      if (e instanceof AcceptError && e.status === 410) setGone(true);
      else setError(e);
    } finally {
      setBusy(false);
    }
  };

  if (gone)
    return html`<main id="main" class="sign-in">
      <${PageTitle}>Invite link no longer valid<//>
      <p class="error" role="alert">${goneAdvice}</p>
      <p><a href="#/">Go to the sign-in page</a></p>
    </main>`;

  return html`<main id="main" class="sign-in">
    <${PageTitle}>Join your team on mailvet<//>
    <p>Choose the password you will sign in with. Your email address is the one the invite was sent to.</p>
    <form onSubmit=${submit} aria-labelledby="accept-title">
      <h2 id="accept-title">Accept the invite</h2>
      <label for="accept-name">Your name <span class="muted">(optional)</span></label>
      <input id="accept-name" type="text" autocomplete="name" value=${name} onInput=${valueTo(setName)} />
      <label for="accept-password">Password</label>
      <input
        id="accept-password"
        type="password"
        autocomplete="new-password"
        aria-describedby="password-rules"
        value=${password}
        onInput=${valueTo(setPassword)}
      />
      <p id="password-rules" class="muted">
        At least 12 characters, with a lower-case letter, an upper-case letter, a digit and a symbol.
      </p>
      <label for="accept-repeat">Password again</label>
      <input
        id="accept-repeat"
        type="password"
        autocomplete="new-password"
        value=${repeat}
        onInput=${valueTo(setRepeat)}
      />
      <button type="submit" disabled=${busy}>${busy ? 'Joining…' : 'Join the workspace'}</button>
      <${ErrorMessage} error=${error} />
    </form>
  </main>`;
}
