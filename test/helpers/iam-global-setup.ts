// Reads the functions' policies once for the whole run (test/helpers/iam-check.ts reads them from its
// file): synthesized only when the sources changed since the last run (local/iam/policy-cache.ts).
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cachedPolicies } from '../../local/iam/policy-cache';
import { localResources } from '../../local/runtime';
import { iamDirVariable, policiesFile } from './iam-check';

export default function setup(): void {
  if (process.env[iamDirVariable]) return;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-iam-'));
  writeFileSync(path.join(dir, policiesFile), JSON.stringify(cachedPolicies(localResources)));
  process.env[iamDirVariable] = dir;
}
