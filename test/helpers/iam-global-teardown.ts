// After the run: which data grants (DynamoDB, S3, SQS) no recorded call of the run used, written to
// iam-unused-grants.txt in the run's directory. Grants a queue consumer's event source uses (receive,
// delete, visibility) are Lambda's, not the function's code's, and are left out.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { queueConsumers } from '../../functions/wiring';
import { unusedGrants, type FunctionPolicies } from '../../local/iam/evaluate';
import { iamDirVariable, policiesFile, type UsedPermission } from './iam-check';

const eventSourceActions = [
  'sqs:ReceiveMessage',
  'sqs:DeleteMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueAttributes',
  'sqs:GetQueueUrl',
];

const reportFile = 'iam-unused-grants.txt';

export default function teardown(): void {
  const dir = process.env[iamDirVariable];
  // Both projects that start runtimes register this teardown: the first one reports.
  if (!dir || !existsSync(path.join(dir, policiesFile)) || existsSync(path.join(dir, reportFile))) return;
  const policies = JSON.parse(readFileSync(path.join(dir, policiesFile), 'utf8')) as FunctionPolicies;
  const used: UsedPermission[] = [];
  for (const file of readdirSync(dir).filter((f) => f.startsWith('used-')))
    used.push(...(JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as UsedPermission[]));
  if (used.length === 0) {
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  const consumers = new Set(queueConsumers.map((c) => c.function));
  const unused = unusedGrants(used, policies).filter(
    (g) => !(consumers.has(g.function) && eventSourceActions.includes(g.action)),
  );
  const report = path.join(dir, reportFile);
  writeFileSync(
    report,
    unused
      .map(
        (g) =>
          `${g.function}\t${g.action}\t${g.resource}${g.condition ? `\t${JSON.stringify(g.condition)}` : ''}`,
      )
      .join('\n') + '\n',
  );
  process.stdout.write(
    `\nIAM: ${used.length} distinct permissions used by recorded calls; ${unused.length} data grants unused in this run: ${report}\n`,
  );
}
