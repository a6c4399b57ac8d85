// Single-table key builders. Every pk/sk comes from here, never from a string literal elsewhere.
//
// Entity            pk                          sk                      gsi1pk / gsi1sk
// company           COMPANY#<companyId>         COMPANY
// user (by email)   COMPANY#<companyId>         USER#<email>
// API key           APIKEY#<sha256 hex>         APIKEY                  COMPANY#<companyId>#APIKEYS / <createdAt>#<keyId>
// rate counter      RATE#<companyId>#<second>   RATE                    (ttl)
// publishable limit RATE#PUB#<keyId>#<window>   RATE                    per IP a minute, per key a day (ttl)
// publishable origin PUBORIGIN#<origin>         KEY#<keyId>             keyHash: answers a CORS preflight
// monthly usage     COMPANY#<companyId>         USAGE#<YYYY-MM>
// plan (quota, credits) COMPANY#<companyId>     USAGE#PLAN              one Query on USAGE# reads plan + months
// job reservation   COMPANY#<companyId>         USAGERES#<jobId>        rows a running bulk job holds
// migration         MIGRATION#<name>            MIGRATION               a one-off migration that has run
// Domain-specific entities (jobs, validation requests, workspace data) add their builders below,
// one block per domain.

export interface ItemKey {
  pk: string;
  sk: string;
}

/** A one-off data migration that has run on this table (functions/domain/migrations.ts). */
export const migrationKey = (name: string): ItemKey => ({ pk: `MIGRATION#${name}`, sk: 'MIGRATION' });

export const companyKey = (companyId: string): ItemKey => ({ pk: `COMPANY#${companyId}`, sk: 'COMPANY' });

export const apiKeyKey = (keyHash: string): ItemKey => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' });
export const apiKeysOfCompanyIndex = (companyId: string) => ({ gsi1pk: `COMPANY#${companyId}#APIKEYS` });

export const rateCounterKey = (companyId: string, epochSecond: number): ItemKey => ({
  pk: `RATE#${companyId}#${epochSecond}`,
  sk: 'RATE',
});

/** A publishable key's counter: `window` is `IP#<ip>#<minute>` or `DAY#<YYYY-MM-DD>`. */
export const publishableCounterKey = (keyId: string, window: string): ItemKey => ({
  pk: `RATE#PUB#${keyId}#${window}`,
  sk: 'RATE',
});

/** One publishable key allowed to call from `origin` (a preflight carries no key, only the origin). */
export const publishableOriginKey = (origin: string, keyId: string): ItemKey => ({
  pk: `PUBORIGIN#${origin}`,
  sk: `KEY#${keyId}`,
});
export const publishableOriginPk = (origin: string): string => publishableOriginKey(origin, '').pk;

export const usageKey = (companyId: string, month: string): ItemKey => ({
  pk: `COMPANY#${companyId}`,
  sk: `USAGE#${month}`,
});

/** The company's plan: its own monthly quota and the credits ever added (functions/store/usage.ts). */
export const planKey = (companyId: string): ItemKey => ({ pk: `COMPANY#${companyId}`, sk: 'USAGE#PLAN' });
/** Every plan and month item of a company starts with this sort key prefix. */
export const usagePrefix = 'USAGE#';
/**
 * The validations a running bulk job holds (functions/store/usage.ts). Its own item, not attributes of
 * the job item, so reservation transactions never conflict with the validators' writes to the job.
 */
export const usageReservationKey = (companyId: string, jobId: string): ItemKey => ({
  pk: `COMPANY#${companyId}`,
  sk: `USAGERES#${jobId}`,
});

/** A user of a company, keyed by lower-cased email (the users list holds one entry per email). */
export const userKey = (companyId: string, email: string): ItemKey => ({
  pk: `COMPANY#${companyId}`,
  sk: `USER#${email.toLowerCase()}`,
});

/** A bulk validation job. */
export const jobKey = (companyId: string, jobId: string): ItemKey => ({
  pk: `COMPANY#${companyId}`,
  sk: `JOB#${jobId}`,
});

/** A single-email validation request and its result (TTL 30 days). */
export const validationRequestKey = (companyId: string, requestId: string): ItemKey => ({
  pk: `COMPANY#${companyId}`,
  sk: `VALIDATION#${requestId}`,
});

// --- Bulk jobs (functions/domain/bulk) -------------------------------------------------------------
// job slot        COMPANY#<companyId>         JOBSLOT#<n>             n in 0..4: one per active job
// job (listing)   (the job item above)                                gsi1 COMPANY#<c>#JOBS / <createdAt>#<jobId>
//                                                                     gsi2 COMPANY#<c>#JOBSTATE#<state> / <createdAt>#<jobId>
// idempotency     COMPANY#<companyId>         IDEMPOTENCY#<scope>#<sha256 of the key>   ttl 24 h
// job counts      COMPANY#<companyId>         JOBCOUNT#<YYYY-MM-DD>   per stored status, ttl 38 days
// counts backfill COMPANY#<companyId>         JOBCOUNT#BACKFILLED     written by earlier releases, never read

/** The job item's place in its company's list of jobs, sorted by creation time (gsi1). */
export const jobsOfCompanyIndex = (companyId: string, createdAt?: string, jobId?: string) => ({
  gsi1pk: `COMPANY#${companyId}#JOBS`,
  gsi1sk: createdAt === undefined ? '' : `${createdAt}#${jobId ?? ''}`,
});

/**
 * The job item's place among its company's jobs in one stored state, by creation time (gsi2, sparse: a
 * cancelled job has none). Every state change moves it; the list filtered by `status` reads it.
 */
export const jobsOfCompanyInStateIndex = (
  companyId: string,
  state: string,
  createdAt?: string,
  jobId?: string,
) => ({
  gsi2pk: `COMPANY#${companyId}#JOBSTATE#${state}`,
  gsi2sk: createdAt === undefined ? '' : `${createdAt}#${jobId ?? ''}`,
});

/**
 * A company's job counts by stored status for one UTC day (functions/store/job-counts.ts): a job counts
 * in its creation day until it completes, then in its completion day. One Query on the prefix reads
 * them all.
 */
export const jobCountKey = (companyId: string, day: string): ItemKey => ({
  pk: `COMPANY#${companyId}`,
  sk: `${jobCountPrefix}${day}`,
});
export const jobCountPrefix = 'JOBCOUNT#';

/** A stored answer to a request sent with an Idempotency-Key. */
export const idempotencyKey = (companyId: string, scope: string, keyHash: string): ItemKey => ({
  pk: `COMPANY#${companyId}`,
  sk: `IDEMPOTENCY#${scope}#${keyHash}`,
});

/**
 * One of a company's five active-job slots. Creating a job claims a free slot with a conditional put,
 * so the limit holds under any concurrency; a slot whose `holdUntil` has passed is free again.
 */
export const jobSlotKey = (companyId: string, slot: number): ItemKey => ({
  pk: `COMPANY#${companyId}`,
  sk: `${jobSlotPrefix}${slot}`,
});
export const jobSlotPrefix = 'JOBSLOT#';

// --- Workspace data (functions/domain/workspace; design in docs/workspace.md) ----------------------
// connected mailbox   COMPANY#<c>  CMBX#<email>                 gsi1 COMPANY#<c>#CMBX#<id> / CMBX
//                                                                gsi2 COMPANY#<c>#CMBXOWNER#<ownerEmail> / <email>
// mailbox reputation  COMPANY#<c>  CMBXREP#<mailboxId>#<YYYY>  one packed year of daily values
// connected domain    COMPANY#<c>  CDOM#<domain>
// domain reputation   COMPANY#<c>  CDOMREP#<domain>#<YYYY>     rollup: rounded daily mean of its mailboxes
// user / invite       COMPANY#<c>  USER#<email>                 gsi1 COMPANY#<c>#USER#<id> / USER (active)
// invite email        COMPANY#<c>  INVITEMAIL#<outboxId>        outbox record, ttl 30 days
// Safety Net mailbox  COMPANY#<c>  SNMBX#<email>                gsi1 COMPANY#<c>#SNMBX#<id> / SNMBX
// Safety Net sequence COMPANY#<c>  SNSEQ#<service>#<crmId>#<ownerEmail>  (components URI-encoded)
//                                                                gsi1 COMPANY#<c>#SNSEQ#<id> / SNSEQ
// list view head      COMPANY#<c>  VIEW#<kind>                  version of the packed list
// list view chunk     COMPANY#<c>  VIEW#<kind>#<nnnn>           packed, sorted rows of one list
// workspace lock      COMPANY#<c>  WSLOCK                       lease held by an import

const companyPk = (companyId: string) => `COMPANY#${companyId}`;
/** URI-encoding keeps `#` out of key components, so prefixes stay unambiguous. */
const part = (value: string) => encodeURIComponent(value);

export const connectedMailboxKey = (companyId: string, email: string): ItemKey => ({
  pk: companyPk(companyId),
  sk: `CMBX#${part(email.toLowerCase())}`,
});
export const connectedMailboxPrefix = 'CMBX#';
export const connectedMailboxIdIndex = (companyId: string, id: string) => ({
  gsi1pk: `${companyPk(companyId)}#CMBX#${id}`,
  gsi1sk: 'CMBX',
});
export const mailboxesOfOwnerIndex = (companyId: string, ownerEmail: string, mailboxEmail: string) => ({
  gsi2pk: `${companyPk(companyId)}#CMBXOWNER#${part(ownerEmail.toLowerCase())}`,
  gsi2sk: mailboxEmail.toLowerCase(),
});
export const mailboxReputationKey = (companyId: string, mailboxId: string, year: number): ItemKey => ({
  pk: companyPk(companyId),
  sk: `CMBXREP#${mailboxId}#${year}`,
});
export const mailboxReputationPrefix = 'CMBXREP#';

export const connectedDomainKey = (companyId: string, domain: string): ItemKey => ({
  pk: companyPk(companyId),
  sk: `CDOM#${part(domain.toLowerCase())}`,
});
export const connectedDomainPrefix = 'CDOM#';
export const domainReputationKey = (companyId: string, domain: string, year: number): ItemKey => ({
  pk: companyPk(companyId),
  sk: `CDOMREP#${part(domain.toLowerCase())}#${year}`,
});
export const domainReputationPrefix = 'CDOMREP#';

export const userPrefix = 'USER#';
export const userIdIndex = (companyId: string, userId: string) => ({
  gsi1pk: `${companyPk(companyId)}#USER#${userId}`,
  gsi1sk: 'USER',
});
export const inviteEmailKey = (companyId: string, outboxId: string): ItemKey => ({
  pk: companyPk(companyId),
  sk: `INVITEMAIL#${outboxId}`,
});

export const safetyNetMailboxKey = (companyId: string, email: string): ItemKey => ({
  pk: companyPk(companyId),
  sk: `SNMBX#${part(email.toLowerCase())}`,
});
export const safetyNetMailboxPrefix = 'SNMBX#';
export const safetyNetMailboxIdIndex = (companyId: string, id: string) => ({
  gsi1pk: `${companyPk(companyId)}#SNMBX#${id}`,
  gsi1sk: 'SNMBX',
});

/** Every owner row of one sequence shares the prefix of safetyNetSequencePrefix(service, crmId). */
export const safetyNetSequenceKey = (
  companyId: string,
  service: string,
  crmSequenceId: string,
  ownerEmail: string,
): ItemKey => ({
  pk: companyPk(companyId),
  sk: `${safetyNetSequencePrefix(service, crmSequenceId)}${part(ownerEmail.toLowerCase())}`,
});
export const safetyNetSequencePrefix = (service?: string, crmSequenceId?: string): string =>
  service === undefined
    ? 'SNSEQ#'
    : `SNSEQ#${part(service)}#${crmSequenceId === undefined ? '' : `${part(crmSequenceId)}#`}`;
export const safetyNetSequenceIdIndex = (companyId: string, id: string) => ({
  gsi1pk: `${companyPk(companyId)}#SNSEQ#${id}`,
  gsi1sk: 'SNSEQ',
});

export const listViewHeadKey = (companyId: string, kind: string): ItemKey => ({
  pk: companyPk(companyId),
  sk: `VIEW#${kind}`,
});
export const listViewChunkKey = (companyId: string, kind: string, chunk: number): ItemKey => ({
  pk: companyPk(companyId),
  sk: `VIEW#${kind}#${String(chunk).padStart(4, '0')}`,
});
export const listViewChunkPrefix = (kind: string) => `VIEW#${kind}#`;
export const workspaceLockKey = (companyId: string): ItemKey => ({ pk: companyPk(companyId), sk: 'WSLOCK' });

// --- People and sign-in (functions/domain/people; design in docs/people.md) ------------------------
// person              PERSON#<cognito sub>      PERSON                  the user a signed-in person is
// invite link         (the invite's user item)                          gsi1 INVITETOKEN#<sha256 of the token> / INVITE
// password reset      PWRESET#<sha256 of token> PWRESET                 one-time, ttl

/** A person of the user pool, by the pool's `sub`: which company's user their token stands for. */
export const personKey = (sub: string): ItemKey => ({ pk: `PERSON#${sub}`, sk: 'PERSON' });
/** An invite's place in the link index: the hash of its one-time token (a refresh moves it). */
export const inviteTokenIndex = (tokenHash: string) => ({
  gsi1pk: `INVITETOKEN#${tokenHash}`,
  gsi1sk: 'INVITE',
});
export const passwordResetKey = (tokenHash: string): ItemKey => ({
  pk: `PWRESET#${tokenHash}`,
  sk: 'PWRESET',
});

// --- Safety Net connections (functions/domain/safety-net; design in docs/safety-net.md) -------------
// connection        COMPANY#<c>            SNCONN#<platform>       gsi1 SNCONNS / <companyId>#<platform>
// OAuth state       SNSTATE#<sha256>       SNSTATE                 single use, ttl 10 minutes
// prevention        COMPANY#<c>            SNPREV#<platform>#<emailId>  gsi1 COMPANY#<c>#SNPREVS / <createdAt>#<id>
// allowlisted email COMPANY#<c>            SNALLOW#<email>
// recipient verdict COMPANY#<c>            SNVERDICT#<email>       ttl: the verdict cache's life

export const safetyNetConnectionKey = (companyId: string, platform: string): ItemKey => ({
  pk: companyPk(companyId),
  sk: `SNCONN#${part(platform)}`,
});
export const safetyNetConnectionPrefix = 'SNCONN#';
/** Every connection of every company, for the schedules' fan-out (a Query, never a Scan). */
export const safetyNetConnectionsIndex = (companyId: string, platform: string) => ({
  gsi1pk: 'SNCONNS',
  gsi1sk: `${companyId}#${platform}`,
});
export const safetyNetStateKey = (stateHash: string): ItemKey => ({
  pk: `SNSTATE#${stateHash}`,
  sk: 'SNSTATE',
});
export const safetyNetPreventionKey = (companyId: string, platform: string, emailId: string): ItemKey => ({
  pk: companyPk(companyId),
  sk: `SNPREV#${part(platform)}#${part(emailId)}`,
});
export const safetyNetPreventionsIndex = (companyId: string, createdAt: string, id: string) => ({
  gsi1pk: `${companyPk(companyId)}#SNPREVS`,
  gsi1sk: `${createdAt}#${id}`,
});
export const safetyNetAllowKey = (companyId: string, email: string): ItemKey => ({
  pk: companyPk(companyId),
  sk: `SNALLOW#${part(email.toLowerCase())}`,
});
export const safetyNetAllowPrefix = 'SNALLOW#';
export const safetyNetVerdictKey = (companyId: string, email: string): ItemKey => ({
  pk: companyPk(companyId),
  sk: `SNVERDICT#${part(email.toLowerCase())}`,
});

// --- Mailbox probes (functions/domain/probe; design in docs/validation.md) --------------------------
// probe verdicts    PROBE#<domain>#<shard>      VERDICTS                map address -> {p, e}; ttl: latest e
// session lease     MXHOST#<host>               SESSION#<n>             n in 0..N-1, holdUntil (ms)
// RCPT schedule     MXHOST#<host>               RCPTPACE                next: first free RCPT slot (ms), ttl
// learnt limits     MXHOST#<host>               LIMITS                  sessions, rcptPerSession, ttl
// probe batch      COMPANY#<c>                 PROBEBATCH#<jobId>#<chunk>#<batch>   progress; verdicts, settledAt

export const probeVerdictShardKey = (domain: string, shard: number): ItemKey => ({
  pk: `PROBE#${part(domain.toLowerCase())}#${shard}`,
  sk: 'VERDICTS',
});
export const mxSessionLeaseKey = (host: string, slot: number): ItemKey => ({
  pk: `MXHOST#${part(host.toLowerCase())}`,
  sk: `SESSION#${slot}`,
});
/** What every session lease's key begins with (the local runtime voids them all at start). */
export const mxSessionLeasePrefix = { pk: 'MXHOST#', sk: 'SESSION#' } as const;
export const mxRcptScheduleKey = (host: string): ItemKey => ({
  pk: `MXHOST#${part(host.toLowerCase())}`,
  sk: 'RCPTPACE',
});
export const mxHostLimitsKey = (host: string): ItemKey => ({
  pk: `MXHOST#${part(host.toLowerCase())}`,
  sk: 'LIMITS',
});
export const probeBatchVerdictsKey = (
  companyId: string,
  jobId: string,
  chunk: number,
  batch: number,
): ItemKey => ({
  pk: companyPk(companyId),
  sk: `${probeBatchVerdictsPrefix(jobId, chunk)}${batch}`,
});
export const probeBatchVerdictsPrefix = (jobId: string, chunk: number) => `PROBEBATCH#${jobId}#${chunk}#`;

// --- Known-address lists (functions/store/known-lists.ts; design in docs/validation.md) -------------
// known address       LIST#<scope>#<email>      <KIND>        gsi1 LIST#<scope>#<KIND> / <email>
//
// scope is "global" or a company id; KIND is DEAD or COMPLAINER; email is lower-cased.
// The email sits in the partition key (not in the sort key under one LIST#<scope>#<kind> partition)
// because the bulk path BatchGets thousands of addresses a second: one partition per list would be
// a hot partition. The index lists one list's addresses in order (exports, audits, deletes).

export type ListKind = 'dead' | 'complainer';
export const LIST_KINDS: readonly ListKind[] = ['dead', 'complainer'];
export const GLOBAL_SCOPE = 'global';

const KIND_SK: Readonly<Record<ListKind, string>> = { dead: 'DEAD', complainer: 'COMPLAINER' };

/** Addresses are matched case-insensitively: providers treat local parts that way in practice. */
export const listEmail = (email: string): string => email.trim().toLowerCase();

export const knownAddressKey = (scope: string, kind: ListKind, email: string): ItemKey => ({
  pk: `LIST#${scope}#${listEmail(email)}`,
  sk: KIND_SK[kind],
});

export const knownAddressIndex = (scope: string, kind: ListKind, email: string) => ({
  gsi1pk: `LIST#${scope}#${KIND_SK[kind]}`,
  gsi1sk: listEmail(email),
});

export function kindOfSortKey(sk: string): ListKind | null {
  if (sk === KIND_SK.dead) return 'dead';
  if (sk === KIND_SK.complainer) return 'complainer';
  return null;
}

// --- Connected mailboxes' credentials and placement tests (functions/domain/mailboxes; docs/mailboxes.md)
// credentials     COMPANY#<c>  CMBXCRED#<mailboxId>            gsi2 PLACEMENTNET / <companyId>#<mailboxId>
//                                                               (the network: every mailbox with credentials)
// placement test  COMPANY#<c>  PLACETEST#<senderId>#<day>#<tag>  gsi1 PLACEINBOX#<recipientId>#<day> / <tag>
//                                                               (c is the sender's company; ttl 60 days)

export const mailboxCredentialsKey = (companyId: string, mailboxId: string): ItemKey => ({
  pk: companyPk(companyId),
  sk: `CMBXCRED#${mailboxId}`,
});
export const placementNetworkIndex = (companyId?: string, mailboxId?: string) => ({
  gsi2pk: 'PLACEMENTNET',
  gsi2sk: companyId === undefined ? '' : `${companyId}#${mailboxId ?? ''}`,
});
export const placementTestKey = (companyId: string, senderId: string, day: string, tag: string): ItemKey => ({
  pk: companyPk(companyId),
  sk: `PLACETEST#${senderId}#${day}#${tag}`,
});
/** The sort-key prefix of a sender's tests, or of one day of them. */
export const placementTestPrefix = (senderId: string, day?: string) =>
  `PLACETEST#${senderId}#${day === undefined ? '' : `${day}#`}`;
export const placementInboxIndex = (recipientId: string, day: string, tag = '') => ({
  gsi1pk: `PLACEINBOX#${recipientId}#${day}`,
  gsi1sk: tag,
});
