// Connecting a mailbox (its IMAP and SMTP submission settings, checked by the API at once) and
// disconnecting one. The API's refusal says what to fix (which login failed and the server's words,
// or which host could not be reached); the page shows it as is.
import { useState } from 'preact/hooks';
import { ApiError, type Api, type MailServerSettings } from '../api';
import { html } from '../html';
import { ErrorMessage, valueTo } from '../ui';

type Security = 'tls' | 'starttls';

function ServerFields({
  name,
  label,
  value,
  onChange,
}: {
  name: 'imap' | 'smtp';
  label: string;
  value: MailServerSettings;
  onChange: (next: MailServerSettings) => void;
}) {
  const ports = name === 'imap' ? { tls: 993, starttls: 143 } : { tls: 465, starttls: 587 };
  return html`<fieldset>
    <legend>${label}</legend>
    <div class="field">
      <label for=${`${name}-host`}>${label} host</label>
      <input
        id=${`${name}-host`}
        type="text"
        autocomplete="off"
        value=${value.host}
        onInput=${valueTo((host) => onChange({ ...value, host }))}
      />
    </div>
    <div class="field inline">
      <label for=${`${name}-security`}>${label} security</label>
      <select
        id=${`${name}-security`}
        value=${value.security}
        onChange=${valueTo<Security>((security) => onChange({ ...value, security, port: ports[security] }))}
      >
        <option value="tls">TLS (port ${ports.tls})</option>
        <option value="starttls">STARTTLS (port ${ports.starttls})</option>
      </select>
      <label for=${`${name}-port`}>${label} port</label>
      <input
        id=${`${name}-port`}
        type="number"
        min="1"
        max="65535"
        value=${value.port}
        onInput=${valueTo((port) => onChange({ ...value, port: Number(port) }))}
      />
    </div>
    <div class="field">
      <label for=${`${name}-username`}>${label} username</label>
      <input
        id=${`${name}-username`}
        type="text"
        autocomplete="off"
        value=${value.username}
        onInput=${valueTo((username) => onChange({ ...value, username }))}
      />
    </div>
    <div class="field">
      <label for=${`${name}-password`}>${label} password</label>
      <input
        id=${`${name}-password`}
        type="password"
        autocomplete="new-password"
        value=${value.password}
        onInput=${valueTo((password) => onChange({ ...value, password }))}
      />
    </div>
  </fieldset>`;
}

const blank = (port: number, security: Security): MailServerSettings => ({
  host: '',
  port,
  security,
  username: '',
  password: '',
});

export function ConnectMailboxForm({ api, onConnected }: { api: Api; onConnected: () => void }) {
  const [email, setEmail] = useState('');
  const [imap, setImap] = useState(blank(993, 'tls'));
  const [smtp, setSmtp] = useState(blank(587, 'starttls'));
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setDone(undefined);
    if (!email.trim()) return setError(new Error('Enter the mailbox address to connect.'));
    const withUser = (s: MailServerSettings) => ({ ...s, username: s.username.trim() || email.trim() });
    setBusy(true);
    try {
      const mailbox = await api.connectMailbox({
        email: email.trim(),
        imap: withUser(imap),
        smtp: withUser(smtp),
      });
      setDone(`${mailbox.email} is connected. Its reputation shows from the third day of tests.`);
      setEmail('');
      setImap(blank(993, 'tls'));
      setSmtp(blank(587, 'starttls'));
      onConnected();
    } catch (e) {
      setError(
        e instanceof ApiError && e.status === 403 && e.message !== 'Invalid API key'
          ? new Error(
              'This API key cannot connect mailboxes: only an admin can. Sign in with a key created by an admin.',
            )
          : e,
      );
    } finally {
      setBusy(false);
    }
  };

  return html`<form class="card" onSubmit=${submit} aria-labelledby="connect-title">
    <h2 id="connect-title">Connect a mailbox</h2>
    <p class="muted">
      mailvet logs in to both servers now, and each day sends a few plain test messages to other connected
      mailboxes to measure where mail lands. Use an app password where the provider offers one; it is stored
      encrypted and never shown again.
    </p>
    <div class="field">
      <label for="connect-email">Mailbox address</label>
      <input id="connect-email" type="email" autocomplete="off" value=${email} onInput=${valueTo(setEmail)} />
    </div>
    <${ServerFields} name="imap" label="IMAP" value=${imap} onChange=${setImap} />
    <${ServerFields} name="smtp" label="SMTP" value=${smtp} onChange=${setSmtp} />
    <p class="muted">Usernames left empty are the mailbox address.</p>
    <${ErrorMessage} error=${error} />
    ${done && html`<p role="status" data-testid="connect-done">${done}</p>`}
    <button type="submit" disabled=${busy}>${busy ? 'Checking both logins…' : 'Connect'}</button>
  </form>`;
}

export function DisconnectButton({
  api,
  id,
  email,
  onDone,
}: {
  api: Api;
  id: string;
  email: string;
  onDone: () => void;
}) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const disconnect = async () => {
    if (
      !window.confirm(
        `Disconnect ${email}? Its reputation history is deleted; connecting it again starts a new one.`,
      )
    )
      return;
    setBusy(true);
    setError(undefined);
    try {
      await api.disconnectMailbox(id);
      onDone();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return html`<div>
    <button type="button" class="secondary" disabled=${busy} onClick=${disconnect}>
      Disconnect this mailbox
    </button>
    <${ErrorMessage} error=${error} />
  </div>`;
}
