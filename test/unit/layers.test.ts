// The layers of functions/ (docs/architecture.md): handlers -> middlewares -> use cases -> storage ->
// clients. A file may import its own layer or one below it, never one above.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../../functions');
const layers = ['handlers', 'http', 'middlewares', 'domain', 'store', 'clients'] as const;
/** Rank of a path below functions/: lower runs first; shared modules (errors, log, settings, ...) have none. */
function rankOf(file: string): number | undefined {
  const top = path.relative(root, file).split(path.sep)[0]!;
  const index = (layers as readonly string[]).indexOf(top);
  if (index < 0) return undefined;
  // http/ composes the middlewares: the same layer.
  return top === 'http' ? layers.indexOf('middlewares') : index;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

describe('the layers of functions/', () => {
  it('has no import that runs back up a layer', () => {
    const upward: string[] = [];
    for (const file of sources(root)) {
      const own = rankOf(file);
      if (own === undefined) continue;
      const text = readFileSync(file, 'utf8');
      for (const [, specifier] of text.matchAll(/^(?:import|export)[^'"]*from '(\.[^']+)'/gm)) {
        const target = rankOf(path.resolve(path.dirname(file), specifier!));
        if (target !== undefined && target < own)
          upward.push(`${path.relative(root, file)} imports ${specifier}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('keeps the SDK and its clients out of the use cases (functions/domain/)', () => {
    const reaching: string[] = [];
    for (const file of sources(path.join(root, 'domain'))) {
      const name = path.relative(root, file).split(path.sep).join('/');
      const text = readFileSync(file, 'utf8');
      for (const [, from, bare] of text.matchAll(
        /^(?:import|export)[^'"]*from '([^']+)'|^import '([^']+)'/gm,
      )) {
        const specifier = from ?? bare;
        const sdk = specifier!.startsWith('@aws-sdk/');
        const client =
          specifier!.startsWith('.') &&
          rankOf(path.resolve(path.dirname(file), specifier!)) === layers.indexOf('clients');
        if (sdk || client) reaching.push(`${name} imports ${specifier}`);
      }
    }
    expect(reaching).toEqual([]);
  });

  it('reads the time only through the clock (functions/clock.ts)', () => {
    const direct: string[] = [];
    for (const file of sources(root)) {
      const name = path.relative(root, file).split(path.sep).join('/');
      if (name === 'clock.ts') continue;
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (/new Date\(\)|\bDate\.now\b|\bperformance\.now\b/.test(line))
          direct.push(`${name}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(direct).toEqual([]);
  });

  it('sends every DynamoDB command through the one path, send() in functions/store/dynamodb.ts', () => {
    const direct: string[] = [];
    for (const file of sources(root)) {
      const name = path.relative(root, file).split(path.sep).join('/');
      if (name === 'store/dynamodb.ts') continue;
      const text = readFileSync(file, 'utf8');
      // Any client's send in a module that reaches DynamoDB, whatever the client is called: the S3,
      // SQS, SES and secrets calls live in modules of their own, which import nothing of DynamoDB.
      const calls = text.match(/\.send\(/g) ?? [];
      const dynamo = /@aws-sdk\/(?:lib-dynamodb|client-dynamodb|util-dynamodb)|clients\/dynamodb'/.test(text);
      if (calls.length > 0 && dynamo) direct.push(`${name}: ${calls.join(', ')}`);
    }
    expect(direct).toEqual([]);
  });

  it('parses the items it reads in functions/store/ instead of casting them', () => {
    // entities/ declares the items; dynamodb.ts only narrows the client it sends with
    const casts: string[] = [];
    for (const file of sources(path.join(root, 'store'))) {
      const name = path.relative(root, file).split(path.sep).join('/');
      if (name === 'store/dynamodb.ts' || name.startsWith('store/entities/')) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/\bas unknown as\b|\b(?:Item|Items|Attributes)\??\s+as\b/.test(line))
            casts.push(`${name}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(casts).toEqual([]);
  });

  it('keeps demo data, the local runtime and the tools out of functions/', () => {
    // Demo seeding lives in local/demo/ and is called by `npm start`; production code never reaches it.
    const outside = ['local', 'bin', 'bench', 'test'].map((dir) => path.resolve(root, '..', dir) + path.sep);
    const reaching: string[] = [];
    for (const file of sources(root)) {
      const name = path.relative(root, file).split(path.sep).join('/');
      if (/^demo[-.]/.test(path.basename(name))) reaching.push(`${name} is a demo module`);
      const text = readFileSync(file, 'utf8');
      for (const [, from, dynamic] of text.matchAll(
        /^(?:import|export)[^'"]*from '(\.[^']+)'|import\('(\.[^']+)'\)/gm,
      )) {
        const specifier = (from ?? dynamic)!;
        const target = path.resolve(path.dirname(file), specifier);
        if (outside.some((dir) => target.startsWith(dir)) || /(^|\/)demo[-/]/.test(specifier))
          reaching.push(`${name} imports ${specifier}`);
      }
    }
    expect(reaching).toEqual([]);
  });

  it('keeps every file under functions/ within 600 lines', () => {
    const long: string[] = [];
    for (const file of sources(root)) {
      const name = path.relative(root, file).split(path.sep).join('/');
      const lines = readFileSync(file, 'utf8').split('\n').length;
      if (lines > 600) long.push(`${name}: ${lines} lines`);
    }
    expect(long).toEqual([]);
  });
});
