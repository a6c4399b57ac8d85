// The functions' policies for the recorded-call check, synthesized from lib/ (template-policies.ts, about
// 7 s of CPU) only when something the synthesis reads has changed: they are kept in a file named by a
// hash of those sources (the CDK app, the code under functions/ it imports, this directory, the locked
// dependency versions) and the local resource names. A hit reads one JSON file instead.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { queues } from '../../functions/wiring';
import type { FunctionPolicies } from './evaluate';
import { synthesizePolicies, type LocalResources } from './template-policies';

const repositoryRoot = path.resolve(__dirname, '../..');

/** Everything the synthesis can read, relative to the repository's root. */
const synthesisSources = ['lib', 'functions', 'local/iam', 'package-lock.json'];

/** Where the policies are kept: beside the dependencies, so a fresh `npm ci` starts without them. */
const defaultPolicyCacheDir = path.join(repositoryRoot, 'node_modules', '.cache', 'mailvet-iam');

const entryPrefix = 'policies-';

function filesUnder(root: string, relative: string): string[] {
  const full = path.join(root, relative);
  let stat;
  try {
    stat = statSync(full);
  } catch {
    return [];
  }
  if (!stat.isDirectory()) return [relative];
  return readdirSync(full)
    .sort()
    .flatMap((name) => filesUnder(root, path.join(relative, name)));
}

/** A hash of the sources' paths and contents and of the local names the policies are resolved to. */
export function synthesisKey(local: LocalResources, root = repositoryRoot): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ ...local, queues: queues.map((q) => local.queueName(q.name)) }));
  for (const file of synthesisSources.flatMap((s) => filesUnder(root, s))) {
    hash.update(`\0${file}\0`);
    hash.update(readFileSync(path.join(root, file)));
  }
  return hash.digest('hex').slice(0, 32);
}

export interface PolicyCacheOptions {
  cacheDir?: string;
  /** The repository whose sources name the entry (tests point it elsewhere). */
  root?: string;
  /** Synthesizes on a miss; default: the CDK app (template-policies.ts). */
  synthesize?: (local: LocalResources) => FunctionPolicies;
}

/** The functions' policies: the kept ones when the sources are unchanged, else synthesized and kept. */
export function cachedPolicies(local: LocalResources, options: PolicyCacheOptions = {}): FunctionPolicies {
  const cacheDir = options.cacheDir ?? defaultPolicyCacheDir;
  const entry = `${entryPrefix}${synthesisKey(local, options.root)}.json`;
  const file = path.join(cacheDir, entry);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as FunctionPolicies;
  } catch {
    // not kept yet (or unreadable): synthesize
  }
  const policies = (options.synthesize ?? synthesizePolicies)(local);
  mkdirSync(cacheDir, { recursive: true });
  // written aside then renamed: a concurrent run reads a whole entry or none
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, JSON.stringify(policies));
  renameSync(partial, file);
  // entries of older sources are never read again
  for (const name of readdirSync(cacheDir))
    if (name.startsWith(entryPrefix) && name.endsWith('.json') && name !== entry)
      rmSync(path.join(cacheDir, name), { force: true });
  return policies;
}
