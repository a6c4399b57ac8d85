// The declared entities: each builds its stored item from its key builder and attributes exactly as
// the stores wrote them before, reads one back with its types checked, and refuses a malformed item
// (or an attribute its declaration lacks) with an error that names the entity and the item.
import { number, string } from 'dynamodb-toolbox';
import { companyEntity, userEntity } from '../../../functions/store/entities/accounts';
import { MalformedItemError, storedEntity } from '../../../functions/store/entities/declare';
import { jobEntity } from '../../../functions/store/entities/jobs';
import { parseVerdictEntry, probeVerdictShardEntity } from '../../../functions/store/entities/probes';
import {
  connectedMailboxEntity,
  listViewHeadEntity,
  mailboxReputationEntity,
  parseMailboxReputationBlock,
} from '../../../functions/store/entities/workspace';
import {
  companyKey,
  connectedMailboxIdIndex,
  connectedMailboxKey,
  jobKey,
  jobsOfCompanyIndex,
  listViewHeadKey,
  mailboxReputationKey,
  mailboxesOfOwnerIndex,
  probeVerdictShardKey,
  userIdIndex,
  userKey,
} from '../../../functions/store/keys';

const company = {
  ...companyKey('acme'),
  type: 'company' as const,
  companyId: 'acme',
  name: 'Acme',
  seats: 5,
  webhookSecret: 'whsec_x',
  createdAt: '2026-01-01T00:00:00.000Z',
};

describe('a declared entity', () => {
  it('stores exactly the key and attributes it is given, no library attributes added', () => {
    expect(companyEntity.item(company)).toEqual({
      pk: 'COMPANY#acme',
      sk: 'COMPANY',
      type: 'company',
      companyId: 'acme',
      name: 'Acme',
      seats: 5,
      webhookSecret: 'whsec_x',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
  });

  it('parses a stored item back to the same attributes', () => {
    expect(companyEntity.parse(companyEntity.item(company))).toEqual(company);
  });

  it('refuses a stored item with a wrong type, naming the entity, the key and the attribute', () => {
    const read = () => companyEntity.parse({ ...company, seats: 'five' });
    expect(read).toThrow(MalformedItemError);
    expect(read).toThrow(/Malformed company item COMPANY#acme \/ COMPANY: .*'seats'/);
  });

  it('refuses a stored item that lacks a required attribute', () => {
    const { webhookSecret: _dropped, ...rest } = company;
    expect(() => companyEntity.parse(rest)).toThrow(/Malformed company item .*webhookSecret/);
  });

  it('refuses to write an attribute its declaration does not have, rather than drop it', () => {
    expect(() => companyEntity.item({ ...company, plan: 'gold' } as typeof company)).toThrow(
      /undeclared plan/,
    );
  });

  it('refuses a value outside an enumeration', () => {
    const user = {
      ...userKey('acme', 'Jane@Acme.test'),
      ...userIdIndex('acme', 'u-1'),
      type: 'user' as const,
      companyId: 'acme',
      userId: 'u-1',
      email: 'jane@acme.test',
      name: 'Jane',
      role: 'admin' as const,
      status: 'active' as const,
      permissions: { inviteUsers: true, toggleSequences: true },
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    expect(userEntity.parse(userEntity.item(user))).toEqual(user);
    expect(() => userEntity.parse({ ...user, role: 'owner' })).toThrow(/Malformed user item .*'role'/);
  });
});

describe('the keys the entities are stored under', () => {
  it('keeps the key strings of the stores (byte for byte)', () => {
    expect(jobKey('acme', 'j-1')).toEqual({ pk: 'COMPANY#acme', sk: 'JOB#j-1' });
    expect(jobsOfCompanyIndex('acme', '2026-01-01T00:00:00.000Z', 'j-1')).toEqual({
      gsi1pk: 'COMPANY#acme#JOBS',
      gsi1sk: '2026-01-01T00:00:00.000Z#j-1',
    });
    expect(connectedMailboxKey('acme', 'A#B@x.test')).toEqual({
      pk: 'COMPANY#acme',
      sk: 'CMBX#a%23b%40x.test',
    });
    expect(probeVerdictShardKey('Example.COM', 3)).toEqual({ pk: 'PROBE#example.com#3', sk: 'VERDICTS' });
  });

  it('stores a connected mailbox with its id and owner index keys and null reputation', () => {
    const mailbox = {
      ...connectedMailboxKey('acme', 'box@x.test'),
      ...connectedMailboxIdIndex('acme', 'm-1'),
      ...mailboxesOfOwnerIndex('acme', 'Owner@x.test', 'box@x.test'),
      type: 'connectedMailbox' as const,
      id: 'm-1',
      email: 'box@x.test',
      domain: 'x.test',
      provider: 'google',
      connectionStatus: 'connected' as const,
      connectedAt: '2026-01-01',
      statusUpdatedAt: '2026-01-01',
      owner: { email: 'owner@x.test', firstName: 'O', lastName: 'W' },
      currentReputation: null,
      currentReputationDate: null,
    };
    expect(connectedMailboxEntity.item(mailbox)).toEqual(mailbox);
    expect(connectedMailboxEntity.parse(mailbox)).toEqual(mailbox);
  });
});

describe('the job entity', () => {
  it('reads sets and maps as the document client returns them', () => {
    const job = {
      ...jobKey('acme', 'j-1'),
      ...jobsOfCompanyIndex('acme', '2026-01-01T00:00:00.000Z', 'j-1'),
      entity: 'job' as const,
      jobId: 'j-1',
      companyId: 'acme',
      status: 'processing' as const,
      emailColumn: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
      uploadExpiresAtMs: 1,
      slot: 0,
      totalEmails: 10,
      processedEmails: 4,
      counts: { safe: 4, block_bounce_risk: 0, some_risk: 0, dead_email: 0, do_not_mail_abuse: 0 },
      partKeys: { '0': 'parts/0' },
      partBytes: { '0': 120 },
      doneChunks: new Set([0]),
    };
    expect(jobEntity.parse(job)).toEqual(job);
    expect(() => jobEntity.parse({ ...job, status: 'paused' })).toThrow(/Malformed job item .*'status'/);
  });

  it('keeps the attributes the estimate, duplicate and failure writes add', () => {
    const statistics = { safe: 8, block_bounce_risk: 1, some_risk: 1, dead_email: 0, do_not_mail_abuse: 0 };
    const job = {
      ...jobKey('acme', 'j-2'),
      entity: 'job' as const,
      jobId: 'j-2',
      companyId: 'acme',
      status: 'failed' as const,
      emailColumn: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
      uploadExpiresAtMs: 1,
      slot: 0,
      totalEmails: 10,
      processedEmails: 10,
      counts: statistics,
      partKeys: {},
      partBytes: {},
      estimate: true,
      estimateResult: { rows: 100, sampled: 10, statistics },
      runJobId: 'j-3',
      estimateJobId: 'j-0',
      duplicateEmails: 2,
      duplicateTestEmails: 1,
      error: 'boom',
      failedAt: '2026-01-01T00:01:00.000Z',
      cancelledAt: '2026-01-01T00:02:00.000Z',
    };
    expect(jobEntity.parse(job)).toEqual(job);
    expect(jobEntity.item(job)).toEqual(job);
    // running counts always carry every status
    expect(() => jobEntity.parse({ ...job, counts: { safe: 4 } })).toThrow(/Malformed job item .*counts/);
  });
});

describe('the verdict shard', () => {
  it('declares its fixed attributes; entries are read by hand', () => {
    const shard = { ...probeVerdictShardKey('x.test', 1), n: 2, ttl: 100 };
    expect(probeVerdictShardEntity.parse({ ...shard, '@a': { p: 'ok', e: 5 } })).toEqual(shard);
    expect(parseVerdictEntry({ p: 'ok', e: 5 })).toEqual({ p: 'ok', e: 5 });
    expect(parseVerdictEntry({ p: 'ok' })).toBeUndefined();
    expect(parseVerdictEntry('ok')).toBeUndefined();
  });
});

describe('a projected read', () => {
  it('checks only the attributes it asked for', () => {
    const trail = { webhookStatus: 'retrying', webhookAttempts: [{ attempt: 1, at: 'x', outcome: 'retry' }] };
    expect(jobEntity.parsePart(trail, ['webhookAttempts', 'webhookStatus'])).toEqual(trail);
    expect(() => jobEntity.parsePart({ webhookStatus: 'lost' }, ['webhookStatus'])).toThrow(
      /Malformed job item .*'webhookStatus'/,
    );
  });
});

describe('declaring an entity with storedEntity', () => {
  const widgetEntity = storedEntity('widget', {
    type: string().const('widget'),
    name: string(),
    size: number().optional(),
  });
  const widget = { pk: 'COMPANY#acme', sk: 'WIDGET#w-1', type: 'widget' as const, name: 'Gear' };

  it('gives the item pk and sk and no library attribute', () => {
    expect(widgetEntity.name).toBe('widget');
    expect(widgetEntity.item(widget)).toEqual(widget);
    expect(widgetEntity.parse({ ...widget, size: 3 })).toEqual({ ...widget, size: 3 });
    expect(() => widgetEntity.parse({ ...widget, pk: undefined })).toThrow(/Malformed widget item .*'pk'/);
  });

  it('picks only the attributes asked for, a required one refused when missing', () => {
    expect(widgetEntity.pick({ ...widget, size: 'big' }, ['name'])).toEqual({ name: 'Gear' });
    expect(() => widgetEntity.pick({ pk: 'p', sk: 's' }, ['name'])).toThrow(
      /Malformed widget item p \/ s: .*'name'/,
    );
  });
});

describe('the workspace items a hot path reads', () => {
  it("checks a mailbox reputation block's page attributes by hand, as strictly as its entity", () => {
    const block = mailboxReputationEntity.item({
      ...mailboxReputationKey('acme', 'm-1', 2026),
      type: 'mailboxReputation',
      mailboxId: 'm-1',
      year: 2026,
      days: '--'.repeat(366),
    });
    expect(parseMailboxReputationBlock(block)).toEqual({ mailboxId: 'm-1', year: 2026, days: block.days });
    expect(() => parseMailboxReputationBlock({ ...block, year: '2026' })).toThrow(MalformedItemError);
    expect(() => parseMailboxReputationBlock({ ...block, days: undefined })).toThrow(
      /Malformed mailboxReputation item COMPANY#acme \/ CMBXREP#m-1#2026/,
    );
  });

  it("reads a list view head's counts as a number list per facet", () => {
    const head = { ...listViewHeadKey('acme', 'cmbx'), type: 'listViewHead' as const, version: 2, chunks: 2 };
    expect(listViewHeadEntity.parse({ ...head, counts: { '*': [3, 1] } }).counts).toEqual({ '*': [3, 1] });
    expect(() => listViewHeadEntity.parse({ ...head, counts: { '*': ['3'] } })).toThrow(
      /Malformed listViewHead item .*counts/,
    );
  });
});
