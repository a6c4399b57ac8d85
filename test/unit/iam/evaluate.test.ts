// The IAM model of the recorded-call check: which permissions a call needs, and when a statement grants
// them (wildcards, the s3:prefix condition, Deny).
import type { AwsCall } from '../../../functions/clients/call-recording';
import {
  isAllowed,
  permissionsFor,
  refusedCalls,
  unusedGrants,
  type PolicyStatement,
} from '../../../local/iam/evaluate';

const names = { region: 'us-east-1', account: '000000000000' };
const table = 'arn:aws:dynamodb:us-east-1:000000000000:table/t';
const bucket = 'arn:aws:s3:::b';
const call = (c: Omit<AwsCall, 'function' | 'at' | 'ms'> & { function?: string }): AwsCall => ({
  function: 'fn',
  at: 0,
  ms: 0,
  ...c,
});

describe('permissionsFor', () => {
  it('needs each transaction item its own action on its table', () => {
    const needed = permissionsFor(
      call({
        service: 'dynamodb',
        operation: 'TransactWriteItems',
        target: {
          transactItems: [
            { kind: 'Put', table: 't' },
            { kind: 'ConditionCheck', table: 't' },
            { kind: 'Delete', table: 't' },
          ],
        },
      }),
      names,
    );
    expect(needed.map((p) => [p.action, p.resource])).toEqual([
      ['dynamodb:PutItem', table],
      ['dynamodb:ConditionCheckItem', table],
      ['dynamodb:DeleteItem', table],
    ]);
  });

  it("needs Query on the index a query names, and a batch's action on each table", () => {
    expect(
      permissionsFor(
        call({ service: 'dynamodb', operation: 'Query', target: { tables: ['t'], indexName: 'gsi1' } }),
        names,
      ),
    ).toEqual([{ action: 'dynamodb:Query', resource: `${table}/index/gsi1`, context: {} }]);
    expect(
      permissionsFor(
        call({ service: 'dynamodb', operation: 'BatchWriteItem', target: { tables: ['t', 'u'] } }),
        names,
      ).map((p) => p.resource),
    ).toEqual([table, 'arn:aws:dynamodb:us-east-1:000000000000:table/u']);
  });

  it('needs ListBucket with the prefix for a listing, and without one for a read of a missing key', () => {
    expect(
      permissionsFor(
        call({ service: 's3', operation: 'ListObjectsV2', target: { bucket: 'b', prefix: 'results/x' } }),
        names,
      ),
    ).toEqual([{ action: 's3:ListBucket', resource: bucket, context: { 's3:prefix': 'results/x' } }]);
    const missing = permissionsFor(
      call({
        service: 's3',
        operation: 'HeadObject',
        target: { bucket: 'b', key: 'results/x' },
        status: 404,
      }),
      names,
    );
    expect(missing.map((p) => [p.action, p.resource, p.context])).toEqual([
      ['s3:GetObject', `${bucket}/results/x`, {}],
      ['s3:ListBucket', bucket, {}],
    ]);
    const found = permissionsFor(
      call({
        service: 's3',
        operation: 'GetObject',
        target: { bucket: 'b', key: 'k', versionId: 'v1' },
        status: 200,
      }),
      names,
    );
    expect(found.map((p) => p.action)).toEqual(['s3:GetObjectVersion']);
  });

  it('needs PutObject on the target and GetObject on the source for a copy', () => {
    const copy = permissionsFor(
      call({
        service: 's3',
        operation: 'CopyObject',
        target: { bucket: 'b', key: 'uploads/c/run.csv', copySource: 'b/uploads/c/estimate.csv' },
        status: 200,
      }),
      names,
    );
    expect(copy.map((p) => [p.action, p.resource])).toEqual([
      ['s3:PutObject', `${bucket}/uploads/c/run.csv`],
      ['s3:GetObject', `${bucket}/uploads/c/estimate.csv`],
    ]);
  });

  it('needs SendMessage on the queue its URL names, for a batch too', () => {
    expect(
      permissionsFor(
        call({
          service: 'sqs',
          operation: 'SendMessageBatch',
          target: { queueUrl: 'http://127.0.0.1:9/000000000000/mailvet-chunks', entries: 3 },
        }),
        names,
      ),
    ).toEqual([
      {
        action: 'sqs:SendMessage',
        resource: 'arn:aws:sqs:us-east-1:000000000000:mailvet-chunks',
        context: {},
      },
    ]);
  });
});

describe('isAllowed', () => {
  const listResults: PolicyStatement = {
    Effect: 'Allow',
    Action: 's3:ListBucket',
    Resource: bucket,
    Condition: { StringLike: { 's3:prefix': ['results/*'] } },
  };

  it('matches wildcards in actions and resources', () => {
    const statement: PolicyStatement = {
      Effect: 'Allow',
      Action: ['s3:Get*'],
      Resource: `${bucket}/results/*`,
    };
    expect(
      isAllowed([statement], { action: 's3:GetObject', resource: `${bucket}/results/a/b.csv`, context: {} }),
    ).toBe(true);
    expect(
      isAllowed([statement], { action: 's3:GetObject', resource: `${bucket}/uploads/a.csv`, context: {} }),
    ).toBe(false);
    expect(
      isAllowed([statement], { action: 's3:PutObject', resource: `${bucket}/results/a`, context: {} }),
    ).toBe(false);
  });

  it('holds an s3:prefix condition to the prefix the request carries, and fails it when there is none', () => {
    expect(
      isAllowed([listResults], {
        action: 's3:ListBucket',
        resource: bucket,
        context: { 's3:prefix': 'results/c/j.csv' },
      }),
    ).toBe(true);
    expect(
      isAllowed([listResults], {
        action: 's3:ListBucket',
        resource: bucket,
        context: { 's3:prefix': 'uploads/' },
      }),
    ).toBe(false);
    expect(isAllowed([listResults], { action: 's3:ListBucket', resource: bucket, context: {} })).toBe(false);
  });

  it('lets a Deny win and treats an unknown condition operator as not holding', () => {
    const all: PolicyStatement = { Effect: 'Allow', Action: '*', Resource: '*' };
    const deny: PolicyStatement = { Effect: 'Deny', Action: 'dynamodb:Scan', Resource: '*' };
    expect(isAllowed([all, deny], { action: 'dynamodb:Scan', resource: table, context: {} })).toBe(false);
    const odd: PolicyStatement = {
      ...all,
      Condition: { DateGreaterThan: { 'aws:CurrentTime': '2020-01-01' } },
    };
    expect(isAllowed([odd], { action: 'dynamodb:GetItem', resource: table, context: {} })).toBe(false);
  });
});

describe('refusedCalls and unusedGrants', () => {
  const policies: Record<string, PolicyStatement[]> = {
    fn: [
      { Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:DeleteItem'], Resource: table },
      { Effect: 'Allow', Action: 's3:GetObject', Resource: `${bucket}/results/*` },
    ],
  };

  it("names the call, the permission and S3's reason; ignores calls outside any function", () => {
    const refused = refusedCalls(
      [
        call({ service: 'dynamodb', operation: 'GetItem', target: { tables: ['t'] } }),
        call({
          service: 's3',
          operation: 'HeadObject',
          target: { bucket: 'b', key: 'results/x' },
          status: 404,
        }),
        call({ function: undefined, service: 'dynamodb', operation: 'Scan', target: { tables: ['t'] } }),
        call({ function: 'other', service: 'dynamodb', operation: 'GetItem', target: { tables: ['t'] } }),
      ],
      policies,
      names,
    );
    expect(refused.map((r) => [r.function, r.operation, r.permission.action])).toEqual([
      ['fn', 'HeadObject', 's3:ListBucket'],
      ['other', 'GetItem', 'dynamodb:GetItem'],
    ]);
    expect(refused[0]!.permission.because).toMatch(/403, not 404/);
  });

  it('lists the grants no permission used', () => {
    const used = [
      { function: 'fn', permission: { action: 'dynamodb:GetItem', resource: table, context: {} } },
    ];
    expect(unusedGrants(used, policies).map((g) => g.action)).toEqual([
      'dynamodb:DeleteItem',
      's3:GetObject',
    ]);
  });
});
