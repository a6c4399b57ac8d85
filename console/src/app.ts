// The shell: sign-in until a key or a person is accepted, then the navigation and the page the hash
// names. The accept-invite page (an email's link) opens without signing in.
import { useMemo, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';
import { createApi, type Api } from './api';
import type { PeopleConfig } from './config';
import { html } from './html';
import { AcceptInvitePage } from './pages/accept-invite';
import { ApiKeysPage } from './pages/api-keys';
import { BulkPage } from './pages/bulk';
import { ForgotPasswordPage, ResetPasswordPage } from './pages/password-reset';
import { DomainsPage } from './pages/domains';
import { JobPage, JobsPage } from './pages/jobs';
import { MailboxPage, MailboxesPage } from './pages/mailboxes';
import { SafetyNetPage } from './pages/safety-net';
import { SignIn } from './pages/sign-in';
import { UsagePage } from './pages/usage';
import { UsersPage } from './pages/users';
import { ValidatePage } from './pages/validate';
import { href, useRoute } from './route';
import { forgetCredentials, savedCredentials, type Credentials } from './session';

const pages = [
  { page: 'validate', label: 'Validate' },
  { page: 'bulk', label: 'Bulk' },
  { page: 'jobs', label: 'Jobs' },
  { page: 'mailboxes', label: 'Mailboxes' },
  { page: 'domains', label: 'Domains' },
  { page: 'users', label: 'Users' },
  { page: 'safety-net', label: 'Safety Net' },
  { page: 'usage', label: 'Usage' },
  { page: 'api-keys', label: 'API keys' },
];

/** The page of each route; an unknown route shows the Validate page. */
const listPages = new Map<string, ComponentType<{ api: Api }>>([
  ['validate', ValidatePage],
  ['bulk', BulkPage],
  ['jobs', JobsPage],
  ['usage', UsagePage],
  ['mailboxes', MailboxesPage],
  ['domains', DomainsPage],
  ['users', UsersPage],
  ['safety-net', SafetyNetPage],
  ['api-keys', ApiKeysPage],
]);
/** Routes that show one job or mailbox, named by the route's parameter. */
const itemPages = new Map<string, ComponentType<{ api: Api; id: string }>>([
  ['job', JobPage],
  ['mailbox', MailboxPage],
]);

export function App({ apiUrl, people }: { apiUrl: string; people?: PeopleConfig }) {
  const [credentials, setCredentials] = useState<Credentials | undefined>(savedCredentials);
  const route = useRoute();
  const api = useMemo(
    () => (credentials ? createApi({ baseUrl: apiUrl, ...credentials }) : undefined),
    [apiUrl, credentials],
  );

  if (route.page === 'accept-invite')
    return html`<${AcceptInvitePage}
      apiUrl=${apiUrl}
      people=${people}
      token=${route.param ?? ''}
      onSignedIn=${setCredentials}
    />`;
  if (route.page === 'reset-password')
    return html`<${ResetPasswordPage} apiUrl=${apiUrl} token=${route.param ?? ''} />`;
  if (!api && route.page === 'forgot-password') return html`<${ForgotPasswordPage} apiUrl=${apiUrl} />`;
  if (!api) return html`<${SignIn} apiUrl=${apiUrl} people=${people} onSignedIn=${setCredentials} />`;

  const signOut = () => {
    forgetCredentials();
    setCredentials(undefined);
  };
  const who = credentials && 'email' in credentials ? credentials.email : undefined;
  const current = route.page === 'mailbox' ? 'mailboxes' : route.page === 'job' ? 'jobs' : route.page;
  const Item = itemPages.get(route.page);
  const Page = listPages.get(route.page) ?? ValidatePage;
  const page = Item
    ? html`<${Item} api=${api} id=${route.param ?? ''} key=${route.param} />`
    : html`<${Page} api=${api} />`;
  return html`
    <a
      class="skip"
      href="#main"
      onClick=${(e: Event) => {
        e.preventDefault();
        document.getElementById('main')?.focus();
      }}
      >Skip to content</a
    >
    <header class="top">
      <span class="brand">mailvet</span>
      <nav aria-label="Main">
        <ul>
          ${pages.map(
            (p) =>
              html`<li>
                <a href=${href(p.page)} aria-current=${p.page === current ? 'page' : undefined}>${p.label}</a>
              </li>`,
          )}
        </ul>
      </nav>
      ${who && html`<span class="muted who">${who}</span>`}
      <button type="button" class="link" onClick=${signOut}>Sign out</button>
    </header>
    <main id="main" tabindex="-1" key=${route.page + (route.param ?? '')}>${page}</main>
  `;
}
