// The recorded-call check of the integration and end-to-end suites: every AWS call a function made on
// the local runtime must be one its role, as synthesized from lib/, allows (local/iam/evaluate.ts). The
// policies are read once per run (iam-global-setup.ts; synthesized only when lib/ or what it reads
// changed, local/iam/policy-cache.ts); the permissions used are kept for the report of grants nobody
// used (iam-global-teardown.ts).
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AwsCall } from '../../functions/clients/call-recording';
import {
  describeRefused,
  permissionsFor,
  refusedCalls,
  type FunctionPolicies,
  type Permission,
} from '../../local/iam/evaluate';
import { cachedPolicies } from '../../local/iam/policy-cache';
import { localResources } from '../../local/runtime';

/** Set by the global set-up: the directory with policies.json and each file's used permissions. */
export const iamDirVariable = 'MAILVET_IAM_DIR';
export const policiesFile = 'policies.json';

let cached: FunctionPolicies | undefined;

/**
 * The functions' policies: the run's synthesized file, or (outside a jest run with the set-up: benches,
 * the crash suite) the kept synthesis of the current sources.
 */
export function functionPolicies(): FunctionPolicies {
  if (cached) return cached;
  const dir = process.env[iamDirVariable];
  const file = dir && path.join(dir, policiesFile);
  cached =
    file && existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as FunctionPolicies)
      : cachedPolicies(localResources);
  return cached;
}

export interface UsedPermission {
  function: string;
  permission: Permission;
}

/** Each distinct permission the functions' calls needed. */
export function usedPermissions(calls: AwsCall[]): UsedPermission[] {
  const used = new Map<string, UsedPermission>();
  for (const call of calls) {
    if (call.function === undefined) continue;
    for (const permission of permissionsFor(call, localResources)) {
      const entry = { function: call.function, permission };
      used.set(JSON.stringify(entry), entry);
    }
  }
  return [...used.values()];
}

/** Throws, naming each one, when a function made a call its role would refuse; keeps what was used. */
export function checkRecordedCalls(calls: AwsCall[]): void {
  const refused = refusedCalls(calls, functionPolicies(), localResources);
  const dir = process.env[iamDirVariable];
  if (dir && existsSync(dir))
    writeFileSync(path.join(dir, `used-${randomUUID()}.json`), JSON.stringify(usedPermissions(calls)));
  if (refused.length > 0)
    throw new Error(
      `Calls the deployed roles would refuse (functions/wiring.ts access, lib/api-stack.ts grants):\n${describeRefused(refused)}`,
    );
}
