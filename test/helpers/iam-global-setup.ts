// Synthesizes the functions' policies once for the whole run (test/helpers/iam-check.ts reads them).
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { synthesizePolicies } from '../../local/iam/template-policies';
import { localResources } from '../../local/runtime';
import { iamDirVariable, policiesFile } from './iam-check';

export default function setup(): void {
  if (process.env[iamDirVariable]) return;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-iam-'));
  writeFileSync(path.join(dir, policiesFile), JSON.stringify(synthesizePolicies(localResources)));
  process.env[iamDirVariable] = dir;
}
