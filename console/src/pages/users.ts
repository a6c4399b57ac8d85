// Users and pending invites, and the invite form. Inviting needs a key whose creator holds the invite
// permission; the form says so up front and explains a refusal.
import { useState } from 'preact/hooks';
import { ApiError, type Api, type User } from '../api';
import { html } from '../html';
import { ListView, usePagedList, type Column } from '../list';
import { ErrorMessage, formatDate, PageTitle, valueTo } from '../ui';

const columns: Column<User>[] = [
  { title: 'Email', cell: (u) => u.email },
  { title: 'Name', cell: (u) => u.name },
  { title: 'Role', cell: (u) => u.role },
  {
    title: 'Status',
    cell: (u) =>
      u.status === 'invited'
        ? html`<span class="pill invited">invited</span>
            <span class="muted">until ${formatDate(u.inviteExpiresAt)}</span>`
        : html`<span class="pill connected">active</span>`,
  },
  { title: 'Mailboxes', cell: (u) => u.mailboxes.length, num: true },
];

export function UsersPage({ api }: { api: Api }) {
  const list = usePagedList((page) => api.listUsers(page), []);
  return html`<section>
    <${PageTitle}>Users<//>
    <${ListView}
      list=${list}
      rowsOf=${(data: { users: User[] }) => data.users}
      what="users"
      label="Users"
      columns=${columns}
      testId="users"
      empty="No users yet."
    />
    <${InviteForm} api=${api} onInvited=${list.reload} />
  </section>`;
}

function InviteForm({ api, onInvited }: { api: Api; onInvited: () => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<'member' | 'admin'>('member');
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setDone(undefined);
    if (!email.trim()) return setError(new Error('Enter the email address to invite.'));
    setBusy(true);
    try {
      const user = await api.inviteUser({
        email: email.trim(),
        role,
        ...(name.trim() ? { name: name.trim() } : {}),
      });
      setDone(`Invitation sent to ${user.email}. It is valid until ${formatDate(user.inviteExpiresAt)}.`);
      setEmail('');
      setName('');
      onInvited();
    } catch (e) {
      setError(
        e instanceof ApiError && e.status === 403 && e.message !== 'Invalid API key'
          ? new Error(
              'You cannot invite users: your account (or the creator of this API key) lacks the invite ' +
                'permission. Ask an admin, or sign in as one.',
            )
          : e,
      );
    } finally {
      setBusy(false);
    }
  };

  return html`<form class="card" onSubmit=${submit} aria-labelledby="invite-title">
    <h2 id="invite-title">Invite a user</h2>
    <p class="muted">
      Inviting takes a seat and sends an email. It needs a key created by someone allowed to invite.
    </p>
    <div class="field">
      <label for="invite-email">Email</label>
      <input id="invite-email" type="email" autocomplete="off" value=${email} onInput=${valueTo(setEmail)} />
    </div>
    <div class="field">
      <label for="invite-name">Name <span class="muted">(optional)</span></label>
      <input id="invite-name" type="text" value=${name} onInput=${valueTo(setName)} />
    </div>
    <div class="field">
      <label for="invite-role">Role</label>
      <select id="invite-role" value=${role} onChange=${valueTo<'member' | 'admin'>(setRole)}>
        <option value="member">Member</option>
        <option value="admin">Admin</option>
      </select>
    </div>
    <button type="submit" disabled=${busy}>${busy ? 'Inviting…' : 'Send invite'}</button>
    <${ErrorMessage} error=${error} />
    ${done && html`<p class="ok" role="status">${done}</p>`}
  </form>`;
}
