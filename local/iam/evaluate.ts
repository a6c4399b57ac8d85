// What IAM would say to each AWS call the local runtime recorded: the permissions the call needs (with
// S3's rule that a read of a missing key answers 404 only to a caller allowed s3:ListBucket, else 403),
// and whether the function's policy, as synthesized from lib/, allows them. The local emulators enforce
// no IAM; this is how a call a role would refuse fails the tests instead of a deployment.
import type { AwsCall } from '../../functions/clients/call-recording';

/** An IAM policy statement as CloudFormation carries it, with every intrinsic resolved to a string. */
export interface PolicyStatement {
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}

/** Each function's statements (wiring name -> the statements of every policy on its role). */
export type FunctionPolicies = Record<string, PolicyStatement[]>;

/** Where the local runtime's resources live, so calls and templates name them the same way. */
export interface ResourceNames {
  region: string;
  account: string;
}

/** One authorization a call needs: an action on a resource, with the request's condition keys. */
export interface Permission {
  action: string;
  resource: string;
  context: Record<string, string>;
  /** Why the call needs it, when it is not the obvious one. */
  because?: string;
}

const list = <T>(x: T | T[] | undefined): T[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);

/** The queue's ARN from its URL (`.../<account>/<name>`, as SQS and the local SQS both build them). */
function queueArn(url: string, names: ResourceNames): string {
  const name = new URL(url).pathname.split('/').filter(Boolean).pop() ?? '';
  return `arn:aws:sqs:${names.region}:${names.account}:${name}`;
}

const dynamoActions: Record<string, string> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
  Get: 'dynamodb:GetItem',
};

const s3Actions: Record<string, string> = {
  GetObject: 's3:GetObject',
  HeadObject: 's3:GetObject',
  PutObject: 's3:PutObject',
  CreateMultipartUpload: 's3:PutObject',
  UploadPart: 's3:PutObject',
  CompleteMultipartUpload: 's3:PutObject',
  // IAM authorizes a copy as a PutObject of the target plus a GetObject of the source (added below)
  CopyObject: 's3:PutObject',
  UploadPartCopy: 's3:PutObject',
  AbortMultipartUpload: 's3:AbortMultipartUpload',
  ListParts: 's3:ListMultipartUploadParts',
  DeleteObject: 's3:DeleteObject',
};

const sqsActions: Record<string, string> = {
  SendMessageBatch: 'sqs:SendMessage',
  DeleteMessageBatch: 'sqs:DeleteMessage',
  ChangeMessageVisibilityBatch: 'sqs:ChangeMessageVisibility',
};

/** The permissions IAM checks for one call (a transaction needs one per item; a copy, two). */
export function permissionsFor(call: AwsCall, names: ResourceNames): Permission[] {
  const t = call.target;
  const table = (name: string) => `arn:aws:dynamodb:${names.region}:${names.account}:table/${name}`;
  switch (call.service) {
    case 'dynamodb': {
      if (t.transactItems)
        return t.transactItems.map((item) => ({
          action: dynamoActions[item.kind] ?? `dynamodb:${item.kind}`,
          resource: table(item.table),
          context: {},
        }));
      return (t.tables ?? []).map((name) => ({
        action: `dynamodb:${call.operation}`,
        resource: t.indexName ? `${table(name)}/index/${t.indexName}` : table(name),
        context: {},
      }));
    }
    case 's3': {
      const bucketArn = `arn:aws:s3:::${t.bucket ?? ''}`;
      if (call.operation === 'ListObjectsV2' || call.operation === 'ListObjects')
        return [
          {
            action: 's3:ListBucket',
            resource: bucketArn,
            context: t.prefix === undefined ? {} : { 's3:prefix': t.prefix },
          },
        ];
      const objectArn = `${bucketArn}/${t.key ?? ''}`;
      let action = s3Actions[call.operation] ?? `s3:${call.operation}`;
      if (t.versionId && action === 's3:GetObject') action = 's3:GetObjectVersion';
      if (t.versionId && action === 's3:DeleteObject') action = 's3:DeleteObjectVersion';
      const needed: Permission[] = [{ action, resource: objectArn, context: {} }];
      if ((call.operation === 'CopyObject' || call.operation === 'UploadPartCopy') && t.copySource)
        needed.push({
          action: 's3:GetObject',
          resource: `arn:aws:s3:::${decodeURIComponent(t.copySource.replace(/^\//, ''))}`,
          context: {},
        });
      // A read of a missing key: S3 answers 404 only if the caller may list the bucket. The read carries
      // no s3:prefix, so only a listing grant without that condition counts.
      if (call.status === 404 && (call.operation === 'GetObject' || call.operation === 'HeadObject'))
        needed.push({
          action: 's3:ListBucket',
          resource: bucketArn,
          context: {},
          because: `${call.operation} of a missing key answers 403, not 404, without s3:ListBucket`,
        });
      return needed;
    }
    case 'sqs':
      if (!t.queueUrl) return [{ action: `sqs:${call.operation}`, resource: '*', context: {} }];
      return [
        {
          action: sqsActions[call.operation] ?? `sqs:${call.operation}`,
          resource: queueArn(t.queueUrl, names),
          context: {},
        },
      ];
  }
}

/** IAM's wildcard match: `*` any run of characters (slashes included), `?` one; actions ignore case. */
function matches(pattern: string, value: string, ignoreCase = false): boolean {
  const source = pattern
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, ignoreCase ? 'si' : 's').test(value);
}

/**
 * Whether a statement's conditions hold for the request. Only the operators the stack uses are known;
 * any other makes the statement not apply (the check errs towards refusing), as does a key the request
 * does not carry.
 */
function conditionsHold(statement: PolicyStatement, context: Record<string, string>): boolean {
  for (const [operator, keys] of Object.entries(statement.Condition ?? {}))
    for (const [key, values] of Object.entries(keys)) {
      const actual = context[key];
      if (actual === undefined) return false;
      const wanted = list(values);
      if (operator === 'StringEquals' && !wanted.includes(actual)) return false;
      else if (operator === 'StringLike' && !wanted.some((w) => matches(w, actual))) return false;
      else if (operator !== 'StringEquals' && operator !== 'StringLike') return false;
    }
  return true;
}

function statementApplies(statement: PolicyStatement, permission: Permission): boolean {
  if (statement.NotAction !== undefined || statement.NotResource !== undefined)
    throw new Error('NotAction and NotResource are not modelled; extend local/iam/evaluate.ts');
  return (
    list(statement.Action).some((a) => matches(a, permission.action, true)) &&
    list(statement.Resource).some((r) => matches(r, permission.resource)) &&
    conditionsHold(statement, permission.context)
  );
}

/** IAM's verdict for one permission: denied by any matching Deny, else allowed by a matching Allow. */
export function isAllowed(statements: PolicyStatement[], permission: Permission): boolean {
  const applying = statements.filter((s) => statementApplies(s, permission));
  return applying.some((s) => s.Effect === 'Allow') && !applying.some((s) => s.Effect === 'Deny');
}

export interface RefusedCall {
  function: string;
  operation: string;
  permission: Permission;
}

/**
 * The calls a function's role would refuse. Calls made outside any function (the runtime's own set-up,
 * a test's seeding) are not a role's and are not checked; a function without a policy refuses all.
 */
export function refusedCalls(
  calls: AwsCall[],
  policies: FunctionPolicies,
  names: ResourceNames,
): RefusedCall[] {
  const refused: RefusedCall[] = [];
  const seen = new Set<string>();
  for (const call of calls) {
    if (call.function === undefined) continue;
    for (const permission of permissionsFor(call, names)) {
      const key = JSON.stringify([call.function, call.operation, permission]);
      if (seen.has(key)) continue;
      seen.add(key);
      if (!isAllowed(policies[call.function] ?? [], permission))
        refused.push({ function: call.function, operation: call.operation, permission });
    }
  }
  return refused;
}

export function describeRefused(refused: RefusedCall[]): string {
  return refused
    .map(
      (r) =>
        `${r.function}: ${r.operation} needs ${r.permission.action} on ${r.permission.resource}` +
        (Object.keys(r.permission.context).length ? ` with ${JSON.stringify(r.permission.context)}` : '') +
        (r.permission.because ? ` (${r.permission.because})` : ''),
    )
    .join('\n');
}

/** A grant: one action on one resource pattern of one statement of a function's policy. */
export interface Grant {
  function: string;
  action: string;
  resource: string;
  condition?: PolicyStatement['Condition'];
}

/** Grants of data services (DynamoDB, S3, SQS) that no recorded permission of the function used. */
export function unusedGrants(
  permissions: { function: string; permission: Permission }[],
  policies: FunctionPolicies,
): Grant[] {
  const unused: Grant[] = [];
  for (const [fn, statements] of Object.entries(policies))
    for (const statement of statements) {
      if (statement.Effect !== 'Allow') continue;
      for (const action of list(statement.Action)) {
        if (!/^(dynamodb|s3|sqs):/.test(action)) continue;
        for (const resource of list(statement.Resource)) {
          const narrowed: PolicyStatement = { ...statement, Action: action, Resource: resource };
          const used = permissions.some((p) => p.function === fn && statementApplies(narrowed, p.permission));
          if (!used)
            unused.push({
              function: fn,
              action,
              resource,
              ...(statement.Condition ? { condition: statement.Condition } : {}),
            });
        }
      }
    }
  return unused;
}
