// Which one-off data migrations have run on the table: one small item per migration, written when it
// finished, saying when and what it did.
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../clients/dynamodb';
import { send, wroteIf } from './dynamodb';
import { migrationEntity } from './entities/jobs';
import { migrationKey } from './keys';

export interface AppliedMigration {
  name: string;
  appliedAt: string;
  /** What the run did, in a line. */
  summary: string;
}

export async function readAppliedMigration(name: string): Promise<AppliedMigration | undefined> {
  const out = await send<{ Item?: Record<string, unknown> }>(
    new GetCommand({ TableName: tableName(), Key: migrationKey(name), ConsistentRead: true }),
  );
  if (out.Item === undefined) return undefined;
  const { appliedAt, summary } = migrationEntity.parse(out.Item);
  return { name, appliedAt, summary };
}

/** Records a finished run; false when another run recorded it first (the first record stays). */
export function recordAppliedMigration(applied: AppliedMigration): Promise<boolean> {
  return wroteIf(
    send(
      new PutCommand({
        TableName: tableName(),
        Item: migrationEntity.item({ ...migrationKey(applied.name), entity: 'migration', ...applied }),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
}
