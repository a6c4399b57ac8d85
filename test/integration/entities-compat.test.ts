// Byte compatibility of the declared entities with what the stores write today, on DynamoDB Local:
// each item is written by the store code that owns it, read back raw, parsed by its entity and built
// again by the entity, and must come out identical (no attribute lost, none added, none changed).
import { recordDuplicates } from '../../functions/store/jobs/duplicates';
import { importWorkspace, stableId } from '../../functions/domain/workspace/import';
import {
  domainView,
  mailboxView,
  safetyNetMailboxView,
  sequenceView,
  userView,
} from '../../functions/domain/workspace/model';
import { patchSafetyNetMailbox } from '../../functions/domain/workspace/safety-net';
import { jobLimits } from '../../functions/domain/bulk/limits';
import { emptyStatistics } from '../../functions/domain/bulk/statuses';
import { putNewApiKey } from '../../functions/store/accounts';
import { MalformedItemError, type Declared } from '../../functions/store/entities/declare';
import { apiKeyEntity, userEntity } from '../../functions/store/entities/accounts';
import {
  migrationEntity,
  jobCountDayEntity,
  jobEntity,
  jobSlotEntity,
  probeBatchEntity,
} from '../../functions/store/entities/jobs';
import {
  rateCounterEntity,
  usageMonthEntity,
  usagePlanEntity,
  usageReservationEntity,
  validationRequestEntity,
} from '../../functions/store/entities/usage';
import {
  connectedDomainEntity,
  connectedMailboxEntity,
  domainReputationEntity,
  listViewChunkEntity,
  listViewHeadEntity,
  mailboxReputationEntity,
  safetyNetMailboxEntity,
  safetyNetSequenceEntity,
  workspaceLockEntity,
} from '../../functions/store/entities/workspace';
import { recordAppliedMigration } from '../../functions/store/migrations';
import { claimSlot } from '../../functions/store/jobs/slots-and-leases';
import { markProcessing, putNewJob } from '../../functions/store/jobs/transitions';
import { recordProbeHandoff, settleProbeBatch } from '../../functions/store/jobs/probe-accounting';
import {
  apiKeyKey,
  connectedDomainKey,
  connectedMailboxKey,
  domainReputationKey,
  jobCountKey,
  jobKey,
  jobSlotKey,
  listViewChunkKey,
  listViewHeadKey,
  mailboxReputationKey,
  migrationKey,
  planKey,
  probeBatchVerdictsKey,
  rateCounterKey,
  safetyNetMailboxKey,
  safetyNetSequenceKey,
  usageKey,
  userKey,
  usageReservationKey,
  validationRequestKey,
  workspaceLockKey,
  type ItemKey,
} from '../../functions/store/keys';
import { countRequest } from '../../functions/store/rate-counters';
import { addCreditsToPlan, reserveJobRows } from '../../functions/store/usage';
import {
  createPendingRequest,
  readRequest,
  storeCompletedRequest,
} from '../../functions/store/validation-requests';
import { parseStoredOutcome } from '../../functions/domain/single-validation/result-body';
import {
  putWorkspaceLock,
  readConnectedMailboxes,
  readSafetyNetSequences,
} from '../../functions/store/workspace';
import { epochSeconds, ttlAttribute } from '../../functions/store/table';
import { putRawItem, readRawItem } from '../helpers/raw-items';
import { startWorkspaceDb, type WorkspaceDb } from './workspace-harness';
import { safeResult } from '../fixtures/validation-results';

jest.setTimeout(120_000);

let db: WorkspaceDb;
beforeAll(async () => {
  db = await startWorkspaceDb();
});
afterAll(async () => {
  await db?.stop();
});

async function readRaw(key: ItemKey): Promise<Record<string, unknown>> {
  const item = await readRawItem(key);
  if (!item) throw new Error(`nothing stored at ${key.pk} / ${key.sk}`);
  return item;
}

/**
 * Refuses an item whose TTL has passed: a TTL sweep (DynamoDB's; DynamoDB Local's jar has one too) may
 * delete it at any moment, so a test that writes one and reads it (or writes it conditionally) again
 * later could fail now and then; a job item swept before `settleProbeBatch` makes the settle count
 * nothing and write no batch item.
 */
function expectNotExpired(key: ItemKey, raw: Record<string, unknown>): void {
  const ttl = raw[ttlAttribute];
  if (ttl === undefined) return;
  const left = Number(ttl) - epochSeconds(new Date());
  if (!(left > 0))
    throw new Error(
      `${key.pk} / ${key.sk} expired ${-left} s ago (ttl ${String(ttl)}): a TTL sweep may delete it at any moment`,
    );
}

/** The stored item parsed by the entity and built again by it: must be the stored item exactly. */
async function expectRoundTrip(entity: Declared<never>, key: ItemKey): Promise<Record<string, unknown>> {
  const raw = await readRaw(key);
  expectNotExpired(key, raw);
  const parsed = entity.parse(raw);
  expect(entity.item(parsed as never)).toEqual(raw);
  return raw;
}

const companyId = 'compat-co';
// From the clock, not a fixed date: the items built from it expire some days after it (expectNotExpired)
const createdAt = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();

describe('the job store items (store/jobs/, store/migrations.ts)', () => {
  it('a job through creation, start and a probe handoff; its slot, day counts and a migration record', async () => {
    const jobId = 'job-compat-1';
    const slot = await claimSlot(companyId, jobId, Date.now() + 60_000, Date.now(), jobLimits);
    expect(slot).toBeDefined();
    await putNewJob(
      {
        jobId,
        companyId,
        emailColumn: 2,
        fileName: 'leads.csv',
        callbackUrl: 'https://hooks.example.com/x',
        createdAt,
        uploadExpiresAtMs: Date.now() + 60_000,
        slot: slot!,
        counts: emptyStatistics(),
      },
      jobLimits,
    );
    await expectRoundTrip(jobEntity as never, jobKey(companyId, jobId));
    expect(
      await markProcessing(
        { companyId, jobId },
        { now: createdAt, deadlineAtMs: Date.now() + 60_000, scanLeaseUntilMs: Date.now() + 1000 },
      ),
    ).toBe(true);
    await recordProbeHandoff({ companyId, jobId }, 0, 10, 4);
    expect(await recordDuplicates({ companyId, jobId }, { duplicateEmails: 1, duplicateTestEmails: 0 })).toBe(
      true,
    );
    const raw = await expectRoundTrip(jobEntity as never, jobKey(companyId, jobId));
    expect(raw.probeChunks).toEqual(new Set([0]));
    await expectRoundTrip(jobSlotEntity as never, jobSlotKey(companyId, slot!));
    await expectRoundTrip(jobCountDayEntity as never, jobCountKey(companyId, createdAt.slice(0, 10)));
    await recordAppliedMigration({ name: 'compat-check', appliedAt: createdAt, summary: 'nothing to do' });
    await expectRoundTrip(migrationEntity as never, migrationKey('compat-check'));
    expect(
      await settleProbeBatch({ companyId, jobId }, 0, 0, 2, { 'a@x.test': 'ok', 'b@x.test': 'bounce' }, 3600),
    ).toEqual({ counted: true, lastOfChunk: false });
    await expectRoundTrip(probeBatchEntity as never, probeBatchVerdictsKey(companyId, jobId, 0, 0));
  });
});

describe('usage, rate and request items (store/usage.ts, rate-counters.ts, validation-requests.ts)', () => {
  it('a month, the plan and a reservation', async () => {
    await addCreditsToPlan(companyId, 500);
    await expectRoundTrip(usagePlanEntity as never, planKey(companyId));
    expect(await reserveJobRows({ companyId, jobId: 'job-r' }, '2026-03', 25, 1_000_000)).toBeDefined();
    await expectRoundTrip(usageMonthEntity as never, usageKey(companyId, '2026-03'));
    await expectRoundTrip(usageReservationEntity as never, usageReservationKey(companyId, 'job-r'));
  });

  it('a rate counter', async () => {
    const second = epochSeconds(new Date());
    expect(await countRequest(companyId, second, 10)).toBe(true);
    await expectRoundTrip(rateCounterEntity as never, rateCounterKey(companyId, second));
  });

  it('a pending and a completed validation request', async () => {
    await createPendingRequest({
      companyId,
      requestId: 'req-p',
      status: 'pending',
      input: 'a@x.test',
      metadata: { crmId: 42 },
      createdAt,
    });
    await expectRoundTrip(validationRequestEntity as never, validationRequestKey(companyId, 'req-p'));
    await storeCompletedRequest(
      {
        companyId,
        requestId: 'req-c',
        status: 'completed',
        createdAt,
        validatedAt: createdAt,
        outcome: { status: 'safe', reason: 'domain_ok' },
      },
      { month: '2026-03' },
    );
    await expectRoundTrip(validationRequestEntity as never, validationRequestKey(companyId, 'req-c'));
  });

  it("a completed request's outcome is parsed on read, never passed through", async () => {
    // written before smtpReply existed: no smtpReply, read as null
    const outcome = {
      email: 'ann@x.test',
      domain: {
        name: 'x.test',
        unicodeName: 'x.test',
        registrableDomain: 'x.test',
        mxRecords: [{ exchange: 'mx.x.test', priority: 10 }],
        mxProvider: null,
        isCatchAll: false,
        isDisposable: false,
        isFreeProvider: false,
        hasMailServer: true,
      },
      mailbox: {
        localPart: 'ann',
        isRoleAccount: false,
        isAbuseRole: false,
        isKnownDead: false,
        isKnownComplainer: false,
        smtpProbe: 'off',
      },
      result: { status: 'safe', reason: 'accepted', subStatus: null },
    };
    const stored = { companyId, status: 'completed', createdAt, validatedAt: createdAt } as const;
    await storeCompletedRequest({ ...stored, requestId: 'req-ok', outcome }, { month: '2026-03' });
    const read = await readRequest(companyId, 'req-ok', parseStoredOutcome);
    expect(read?.outcome).toEqual({ ...outcome, mailbox: { ...outcome.mailbox, smtpReply: null } });
    // a reader that does not ask for the outcome does not get it
    expect((await readRequest(companyId, 'req-ok'))?.outcome).toBeUndefined();

    await storeCompletedRequest(
      { ...stored, requestId: 'req-odd', outcome: { ...outcome, result: { status: 'fine' } } },
      { month: '2026-03' },
    );
    await expect(readRequest(companyId, 'req-odd', parseStoredOutcome)).rejects.toThrow(MalformedItemError);
    await expect(readRequest(companyId, 'req-odd', parseStoredOutcome)).rejects.toThrow(
      /Malformed validationRequest item .*req-odd: outcome: /,
    );

    // stored as one JSON text attribute, not as nested maps
    const raw = await readRawItem(validationRequestKey(companyId, 'req-ok'));
    expect(raw?.outcome).toBeUndefined();
    expect(JSON.parse(raw?.outcomeJson as string)).toEqual(outcome);
  });

  it('a completed request written with its outcome as nested maps (before outcomeJson) still reads', async () => {
    const outcome = safeResult('bo@x.test');
    const old = {
      ...validationRequestKey(companyId, 'req-maps'),
      type: 'validation_request',
      companyId,
      requestId: 'req-maps',
      status: 'completed',
      createdAt,
      validatedAt: createdAt,
      outcome,
      ttl: 1_800_000_000,
    };
    await putRawItem(old);
    expect((await readRequest(companyId, 'req-maps', parseStoredOutcome))?.outcome).toEqual(outcome);
    await expectRoundTrip(validationRequestEntity as never, validationRequestKey(companyId, 'req-maps'));

    await putRawItem({
      ...old,
      ...validationRequestKey(companyId, 'req-text'),
      requestId: 'req-text',
      outcomeJson: '{"email":',
    });
    await expect(readRequest(companyId, 'req-text', parseStoredOutcome)).rejects.toThrow(
      /Malformed validationRequest item .*req-text: outcome: /,
    );
  });

  it('an API key (store/accounts.ts)', async () => {
    await putNewApiKey('f'.repeat(64), {
      keyId: 'k-compat',
      companyId,
      userId: 'u-1',
      userEmail: 'a@x.test',
      name: 'ci',
      hint: 'mv_live_abc',
      createdAt,
    });
    await expectRoundTrip(apiKeyEntity as never, apiKeyKey('f'.repeat(64)));
  });
});

describe('the workspace items (domain/workspace/import.ts, store/workspace.ts, store/list-views.ts)', () => {
  const ws = 'compat-ws';
  const owner = { email: 'owner@compat.test', firstName: 'Olga', lastName: 'Owner' };

  it('every item an import writes, the list views an API write changes, and the lock', async () => {
    await importWorkspace({
      companyId: ws,
      connectedMailboxes: [
        {
          email: 'box@compat.test',
          provider: 'google',
          connectionStatus: 'credentials_error',
          connectedAt: createdAt,
          owner,
          reputation: { '2026-03-01': 80, '2026-03-02': 77 },
        },
      ],
      users: [
        { email: owner.email, name: 'Olga Owner', role: 'admin', status: 'active', createdAt },
        { email: 'new@compat.test', name: 'New', role: 'member', status: 'invited' },
      ],
      safetyNetMailboxes: [
        { email: 'sn@compat.test', integrations: [{ service: 'outreach', externalId: null }] },
      ],
      safetyNetSequences: [
        { service: 'salesloft', crmSequenceId: '42', name: 'Seq', activated: true, owner },
      ],
    });
    const mailboxId = stableId(ws, 'cmbx', 'box@compat.test');
    await expectRoundTrip(connectedMailboxEntity as never, connectedMailboxKey(ws, 'box@compat.test'));
    await expectRoundTrip(mailboxReputationEntity as never, mailboxReputationKey(ws, mailboxId, 2026));
    await expectRoundTrip(connectedDomainEntity as never, connectedDomainKey(ws, 'compat.test'));
    await expectRoundTrip(domainReputationEntity as never, domainReputationKey(ws, 'compat.test', 2026));
    await expectRoundTrip(userEntity as never, userKey(ws, owner.email));
    await expectRoundTrip(userEntity as never, userKey(ws, 'new@compat.test'));
    await expectRoundTrip(safetyNetMailboxEntity as never, safetyNetMailboxKey(ws, 'sn@compat.test'));
    await expectRoundTrip(
      safetyNetSequenceEntity as never,
      safetyNetSequenceKey(ws, 'salesloft', '42', owner.email),
    );
    for (const view of [mailboxView, domainView, userView, safetyNetMailboxView, sequenceView]) {
      await expectRoundTrip(listViewHeadEntity as never, listViewHeadKey(ws, view.kind));
      await expectRoundTrip(listViewChunkEntity as never, listViewChunkKey(ws, view.kind, 0));
    }

    // An API write: the item's switch and the view's head (an Update expression) and chunk.
    const snId = stableId(ws, 'snmbx', 'sn@compat.test');
    expect(await patchSafetyNetMailbox(ws, snId, true, new Date())).toMatchObject({ activated: true });
    const head = await expectRoundTrip(
      listViewHeadEntity as never,
      listViewHeadKey(ws, safetyNetMailboxView.kind),
    );
    expect(head.version).toBe(2);
    await expectRoundTrip(listViewChunkEntity as never, listViewChunkKey(ws, safetyNetMailboxView.kind, 0));
    await expectRoundTrip(safetyNetMailboxEntity as never, safetyNetMailboxKey(ws, 'sn@compat.test'));

    const now = new Date();
    expect(await putWorkspaceLock(ws, 'token-1', new Date(now.getTime() + 60_000), now)).toBe(true);
    await expectRoundTrip(workspaceLockEntity as never, workspaceLockKey(ws));
  });

  it('refuses a stored item of the wrong shape with the entity, the key and the attribute', async () => {
    const broken = 'compat-broken';
    await putRawItem({
      ...connectedMailboxKey(broken, 'odd@compat.test'),
      type: 'connectedMailbox',
      id: 'm-odd',
      email: 'odd@compat.test',
      connectionStatus: 'paused',
    });
    await expect(readConnectedMailboxes(broken)).rejects.toThrow(MalformedItemError);
    await expect(readConnectedMailboxes(broken)).rejects.toThrow(
      /Malformed connectedMailbox item COMPANY#compat-broken \/ CMBX#odd%40compat.test/,
    );
    // another company's items are not read at all
    expect(await readSafetyNetSequences(ws)).toHaveLength(1);
  });
});
