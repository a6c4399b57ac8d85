// The Salesloft REST API v2 adapter (plain JSON `{data, metadata}`; reference section 2): 1-based page
// paging until metadata.paging.next_page is null, refresh tokens that rotate (the new one is stored
// before anything else uses the grant), OAuth from SALESLOFT_OAUTH_URL. A Salesloft mailbox is a user;
// stopping an email removes the person's cadence membership (there is no pause).
import type { Clock } from '../../../clock';
import { PlatformError } from '../errors';
import { grantOf, refreshGrant, type PlatformSession } from './session';
import type {
  PlatformAdapter,
  PlatformMailbox,
  PlatformOAuth,
  PlatformPerson,
  PlatformSequence,
  ScheduledEmail,
} from './types';

export interface SalesloftConfig {
  apiUrl: string;
  oauthUrl: string;
  clientId: string;
  clientSecret: string;
}

const perPage = 100;
/** Safety net against a server that never says "last page": far beyond any real team. */
const maxPages = 10_000;

type Record_ = Record<string, unknown>;
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const idOf = (value: unknown): string | undefined =>
  typeof value === 'number' || (typeof value === 'string' && value !== '') ? String(value) : undefined;
const refId = (value: unknown): string | undefined =>
  value && typeof value === 'object' ? idOf((value as Record_).id) : undefined;

function personOf(user: Record_ | undefined): PlatformPerson | null {
  if (!user) return null;
  const email = str(user.email);
  if (!email) return null;
  let firstName = str(user.first_name);
  let lastName = str(user.last_name);
  if (!firstName && !lastName && str(user.name))
    [firstName = '', lastName = ''] = str(user.name).split(/\s+(.*)/);
  return { email, firstName, lastName };
}

export function salesloftOAuth(
  config: SalesloftConfig,
  session: () => PlatformSession,
  clock: Clock,
): PlatformOAuth {
  return {
    authorizeUrl(redirectUri, state) {
      const query = new URLSearchParams({
        client_id: config.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        state,
      });
      return `${config.oauthUrl}/authorize?${query.toString()}`;
    },
    async exchangeCode(code, redirectUri) {
      const body = await session().token({
        method: 'POST',
        url: `${config.oauthUrl}/token`,
        what: 'the code exchange',
        body: new URLSearchParams({
          client_id: config.clientId,
          client_secret: config.clientSecret,
          code,
          grant_type: 'authorization_code',
          redirect_uri: redirectUri,
        }),
      });
      return grantOf(body, clock());
    },
  };
}

export function salesloftAdapter(
  config: SalesloftConfig,
  session: PlatformSession,
  clock: Clock,
): PlatformAdapter {
  const refresh = refreshGrant(config, session, clock);

  const call = (
    method: 'GET' | 'DELETE' | 'POST',
    path: string,
    what: string,
    body?: unknown,
    accept?: number[],
  ) => session.call({ method, url: `${config.apiUrl}${path}`, what, body }, refresh, accept);

  /** Every record of a list, page after page until next_page is null (a page past the end is empty). */
  async function collect(path: string, what: string): Promise<Record_[]> {
    const out: Record_[] = [];
    const separator = path.includes('?') ? '&' : '?';
    for (let page = 1; page <= maxPages;) {
      const response = await call('GET', `${path}${separator}per_page=${perPage}&page=${page}`, what);
      const body = (response.body ?? {}) as {
        data?: unknown;
        metadata?: { paging?: { next_page?: unknown } };
      };
      if (!Array.isArray(body.data))
        throw new PlatformError('salesloft', response.status, `${what} (no data list)`);
      out.push(...(body.data as Record_[]));
      const next = body.metadata?.paging?.next_page;
      if (next === null || next === undefined || body.data.length === 0) return out;
      const nextPage = Number(next);
      if (!Number.isInteger(nextPage) || nextPage <= page)
        throw new PlatformError('salesloft', response.status, `${what} (next_page does not move on)`);
      page = nextPage;
    }
    throw new PlatformError('salesloft', 200, `${what} (too many pages)`);
  }

  let users: Promise<Map<string, Record_>> | undefined;
  const allUsers = () =>
    (users ??= collect('/users', 'list users').then((list) => new Map(list.map((u) => [String(u.id), u]))));
  const cadenceNames = new Map<string, Promise<string>>();

  async function userById(id: string | undefined): Promise<Record_ | undefined> {
    if (id === undefined) return undefined;
    const known = (await allUsers()).get(id);
    if (known) return known;
    const response = await call('GET', `/users/${encodeURIComponent(id)}`, 'read a user', undefined, [404]);
    return response.status === 404 ? undefined : ((response.body as { data?: Record_ })?.data ?? undefined);
  }

  function cadenceName(id: string): Promise<string> {
    let name = cadenceNames.get(id);
    if (!name) {
      name = call('GET', `/cadences/${encodeURIComponent(id)}`, 'read a cadence', undefined, [404]).then(
        (response) => str((response.body as { data?: Record_ } | undefined)?.data?.name),
      );
      cadenceNames.set(id, name);
    }
    return name;
  }

  return {
    platform: 'salesloft',

    async mailboxes(): Promise<PlatformMailbox[]> {
      const out: PlatformMailbox[] = [];
      for (const user of (await allUsers()).values()) {
        const owner = personOf(user);
        // a deactivated user sends nothing
        if (!owner || user.active === false) continue;
        out.push({ externalId: String(user.id), email: owner.email, owner });
      }
      return out;
    },

    async sequences(): Promise<PlatformSequence[]> {
      const cadences = await collect('/cadences', 'list cadences');
      const out: PlatformSequence[] = [];
      for (const cadence of cadences) {
        const state = str(cadence.current_state);
        if (state === 'deleted' || state === 'archived' || cadence.archived === true) continue;
        const owner = personOf(await userById(refId(cadence.owner)));
        if (!owner) continue;
        const crmSequenceId = idOf(cadence.id);
        if (crmSequenceId === undefined) continue;
        cadenceNames.set(crmSequenceId, Promise.resolve(str(cadence.name)));
        out.push({ crmSequenceId, name: str(cadence.name), owner });
      }
      return out;
    },

    async scheduledEmails(): Promise<ScheduledEmail[]> {
      const emails = await collect('/activities/emails?status=scheduled', 'list scheduled emails');
      const out: ScheduledEmail[] = [];
      for (const email of emails) {
        if (email.status !== undefined && email.status !== 'scheduled') continue;
        const id = idOf(email.id);
        const recipient = str(email.recipient_email_address);
        const userId = refId(email.user);
        const sender = personOf(await userById(userId));
        if (id === undefined || !recipient || !sender) continue;
        const cadenceId = refId(email.cadence);
        out.push({
          id,
          mailbox: sender.email,
          recipient,
          scheduledAt: str(email.send_after) || null,
          sequence:
            cadenceId === undefined ? null : { crmSequenceId: cadenceId, name: await cadenceName(cadenceId) },
          stop: { personId: refId(email.recipient) ?? refId(email.person), cadenceId },
          ownerRef: userId ?? null,
        });
      }
      return out;
    },

    async stop(email) {
      const { personId, cadenceId } = email.stop;
      if (personId === undefined || cadenceId === undefined) return 'gone';
      const memberships = await collect(
        `/cadence_memberships?person_id=${encodeURIComponent(personId)}&cadence_id=${encodeURIComponent(cadenceId)}`,
        'find a cadence membership',
      );
      const current = memberships.filter((m) => {
        const cadence = refId(m.cadence);
        return m.currently_on_cadence !== false && (cadence === undefined || cadence === cadenceId);
      });
      if (current.length === 0) return 'gone';
      let stopped = false;
      for (const membership of current) {
        const response = await call(
          'DELETE',
          `/cadence_memberships/${encodeURIComponent(String(membership.id))}`,
          'remove a cadence membership',
          undefined,
          [404],
        );
        if (response.status !== 404) stopped = true;
      }
      return stopped ? 'stopped' : 'gone';
    },

    async ownerEmail(email) {
      return email.ownerRef === null ? null : (personOf(await userById(email.ownerRef))?.email ?? null);
    },

    async registerWebhook(url, secret) {
      const response = await call('POST', '/webhook_subscriptions', 'create a webhook subscription', {
        callback_url: url,
        callback_token: secret,
        event_type: 'email_updated',
      });
      return idOf((response.body as { data?: Record_ } | undefined)?.data?.id) ?? null;
    },
  };
}
