// The Outreach REST API v2 adapter (JSON:API; reference section 1): cursor paging through links.next
// only, `include` for the related users, sequences and prospects, OAuth tokens from OUTREACH_OAUTH_URL.
// Stopping an email pauses its prospect's sequenceState (there is no call that edits a mailing).
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

export interface OutreachConfig {
  apiUrl: string;
  oauthUrl: string;
  clientId: string;
  clientSecret: string;
}

/** JSON:API's media type: every request carries it, with a body or without (docs/safety-net.md). */
const mediaType = 'application/vnd.api+json';
const jsonApi = { accept: mediaType, 'content-type': mediaType };
const pageSize = 100;
const outreachScopes = [
  'mailboxes.read',
  'users.read',
  'sequences.read',
  'sequenceStates.all',
  'mailings.read',
  'prospects.read',
  'recipients.read',
  'webhooks.all',
];

interface Resource {
  type: string;
  id: string | number;
  attributes?: Record<string, unknown>;
  relationships?: Record<
    string,
    | { data?: { type: string; id: string | number } | { type: string; id: string | number }[] | null }
    | undefined
  >;
}

interface Document {
  data?: Resource | Resource[];
  included?: Resource[];
  links?: { next?: string | null };
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const idOf = (value: string | number | undefined | null): string | undefined =>
  value === undefined || value === null ? undefined : String(value);
function relId(resource: Resource, name: string): string | undefined {
  const data = resource.relationships?.[name]?.data;
  return data && !Array.isArray(data) ? idOf(data.id) : undefined;
}

/** The included resources a to-many relationship links to (present only when `include` named it). */
function related(resource: Resource, name: string, included: Map<string, Resource>): Resource[] {
  const data = resource.relationships?.[name]?.data;
  if (!Array.isArray(data)) return [];
  return data.flatMap((link) => included.get(`${link.type}:${link.id}`) ?? []);
}

function personOf(user: Resource | undefined): PlatformPerson | null {
  if (!user) return null;
  const a = user.attributes ?? {};
  const email = str(a.email);
  if (!email) return null;
  let firstName = str(a.firstName);
  let lastName = str(a.lastName);
  if (!firstName && !lastName && str(a.name)) [firstName = '', lastName = ''] = str(a.name).split(/\s+(.*)/);
  return { email, firstName, lastName };
}

export function outreachOAuth(
  config: OutreachConfig,
  session: () => PlatformSession,
  clock: Clock,
): PlatformOAuth {
  return {
    authorizeUrl(redirectUri, state) {
      const query = new URLSearchParams({
        client_id: config.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: outreachScopes.join(' '),
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
          redirect_uri: redirectUri,
          grant_type: 'authorization_code',
          code,
        }),
      });
      return grantOf(body, clock());
    },
  };
}

export function outreachAdapter(
  config: OutreachConfig,
  session: PlatformSession,
  clock: Clock,
): PlatformAdapter {
  const refresh = refreshGrant(config, session, clock);

  const get = async (url: string, what: string): Promise<Document> => {
    const response = await session.call({ method: 'GET', url, headers: jsonApi, what }, refresh);
    return (response.body ?? {}) as Document;
  };

  /** Every resource of a collection and everything it included, following links.next to the end. */
  async function collect(
    path: string,
    what: string,
  ): Promise<{ data: Resource[]; included: Map<string, Resource> }> {
    const data: Resource[] = [];
    const included = new Map<string, Resource>();
    const seen = new Set<string>();
    let url: string | undefined = `${config.apiUrl}${path}`;
    while (url) {
      if (seen.has(url)) throw new PlatformError('outreach', 200, `${what} (links.next repeated)`);
      seen.add(url);
      const page = await get(url, what);
      if (!Array.isArray(page.data)) throw new PlatformError('outreach', 200, `${what} (no data list)`);
      data.push(...page.data);
      for (const resource of page.included ?? []) included.set(`${resource.type}:${resource.id}`, resource);
      url = page.links?.next ?? undefined;
    }
    return { data, included };
  }

  /** Users by id, read once per adapter when an include did not bring them. */
  let users: Promise<Map<string, Resource>> | undefined;
  const allUsers = () =>
    (users ??= collect(`/users?page[size]=${pageSize}`, 'list users').then(
      ({ data }) => new Map(data.map((u) => [String(u.id), u])),
    ));

  async function userById(
    id: string | undefined,
    included: Map<string, Resource>,
  ): Promise<Resource | undefined> {
    if (id === undefined) return undefined;
    return included.get(`user:${id}`) ?? (await allUsers()).get(id);
  }

  return {
    platform: 'outreach',

    async mailboxes(): Promise<PlatformMailbox[]> {
      const { data, included } = await collect(
        `/mailboxes?page[size]=${pageSize}&include=user`,
        'list mailboxes',
      );
      const out: PlatformMailbox[] = [];
      for (const mailbox of data) {
        const email = str(mailbox.attributes?.email);
        if (!email) continue;
        const userId = relId(mailbox, 'user') ?? idOf(mailbox.attributes?.userId as number | undefined);
        out.push({
          externalId: String(mailbox.id),
          email,
          owner: personOf(await userById(userId, included)),
        });
      }
      return out;
    },

    async sequences(): Promise<PlatformSequence[]> {
      const { data, included } = await collect(
        `/sequences?page[size]=${pageSize}&include=owner`,
        'list sequences',
      );
      const out: PlatformSequence[] = [];
      for (const sequence of data) {
        const owner = personOf(await userById(relId(sequence, 'owner'), included));
        if (!owner) continue;
        out.push({ crmSequenceId: String(sequence.id), name: str(sequence.attributes?.name), owner });
      }
      return out;
    },

    async scheduledEmails(): Promise<ScheduledEmail[]> {
      const { data, included } = await collect(
        `/mailings?filter[state]=scheduled&page[size]=${pageSize}&include=mailbox,prospect,recipients,sequence,sequenceState`,
        'list scheduled mailings',
      );
      const out: ScheduledEmail[] = [];
      for (const mailing of data) {
        const a = mailing.attributes ?? {};
        if (a.state !== undefined && a.state !== 'scheduled') continue;
        const mailboxId = relId(mailing, 'mailbox');
        const mailbox = mailboxId === undefined ? undefined : included.get(`mailbox:${mailboxId}`);
        const prospectId = relId(mailing, 'prospect');
        const prospect = prospectId === undefined ? undefined : included.get(`prospect:${prospectId}`);
        const sequenceId = relId(mailing, 'sequence');
        const sequence = sequenceId === undefined ? undefined : included.get(`sequence:${sequenceId}`);
        const recipient = recipientOf(related(mailing, 'recipients', included), prospect);
        const sender = str(a.mailboxAddress) || str(mailbox?.attributes?.email);
        if (!recipient || !sender) continue;
        out.push({
          id: String(mailing.id),
          mailbox: sender,
          recipient,
          scheduledAt: str(a.scheduledAt) || null,
          sequence:
            sequenceId === undefined
              ? null
              : { crmSequenceId: sequenceId, name: str(sequence?.attributes?.name) },
          stop: { sequenceStateId: relId(mailing, 'sequenceState') },
          ownerRef: mailboxId ?? null,
        });
      }
      return out;
    },

    async stop(email) {
      const id = email.stop.sequenceStateId;
      if (id === undefined) return 'gone';
      const response = await session.call(
        {
          method: 'POST',
          url: `${config.apiUrl}/sequenceStates/${encodeURIComponent(id)}/actions/pause`,
          headers: jsonApi,
          what: 'pause a sequence state',
        },
        refresh,
        // 404: the state is gone; 422: it is not active any more (paused, finished): nothing will send
        [404, 422],
      );
      return response.status === 404 || response.status === 422 ? 'gone' : 'stopped';
    },

    async ownerEmail(email) {
      if (email.ownerRef === null) return null;
      const doc = await get(
        `${config.apiUrl}/mailboxes/${encodeURIComponent(email.ownerRef)}?include=user`,
        'read a mailbox',
      );
      const mailbox = Array.isArray(doc.data) ? doc.data[0] : doc.data;
      if (!mailbox) return null;
      const included = new Map((doc.included ?? []).map((r) => [`${r.type}:${r.id}`, r]));
      const userId = relId(mailbox, 'user') ?? idOf(mailbox.attributes?.userId as number | undefined);
      return personOf(await userById(userId, included))?.email ?? null;
    },

    async registerWebhook(url, secret) {
      const response = await session.call(
        {
          method: 'POST',
          url: `${config.apiUrl}/webhooks`,
          headers: jsonApi,
          what: 'create a webhook',
          body: {
            data: {
              type: 'webhook',
              attributes: { url, secret, resource: 'mailing', action: '*', active: true },
            },
          },
        },
        refresh,
      );
      const created = (response.body as Document | undefined)?.data;
      return (Array.isArray(created) ? undefined : idOf(created?.id)) ?? null;
    },
  };
}

/** The mailing's "to" recipient when the include brought it, else the prospect's first address. */
function recipientOf(recipients: Resource[], prospect: Resource | undefined): string {
  const to = recipients.find((r) => (r.attributes?.recipientType ?? 'to') === 'to');
  const value = to?.attributes?.value ?? to?.attributes?.email;
  if (typeof value === 'string' && value.includes('@')) return value;
  const emails = prospect?.attributes?.emails;
  if (Array.isArray(emails) && typeof emails[0] === 'string') return emails[0];
  return '';
}
