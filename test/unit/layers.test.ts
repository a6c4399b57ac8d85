// The layers of functions/ (docs/architecture.md): handlers -> middlewares -> use cases -> storage ->
// clients. A file may import its own layer or one below it, never one above.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as ts from 'typescript';

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

/** The storage modules whose reads must be parsed: all of functions/store/ but its DynamoDB idioms and the declarations. */
function storeModules(): string[] {
  return sources(path.join(root, 'store')).filter((file) => {
    const name = path.relative(root, file).split(path.sep).join('/');
    return name !== 'store/dynamodb.ts' && !name.startsWith('store/entities/');
  });
}

type FunctionLike = ts.FunctionDeclaration | ts.ArrowFunction | ts.FunctionExpression;

/** Each exported function of a module (declared, or a const holding one) with its name. */
function exportedFunctions(source: ts.SourceFile): [FunctionLike, string][] {
  const exported = (node: ts.Statement) =>
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  return source.statements.filter(exported).flatMap((statement): [FunctionLike, string][] => {
    if (ts.isFunctionDeclaration(statement)) return [[statement, statement.name?.text ?? 'default']];
    if (!ts.isVariableStatement(statement)) return [];
    return statement.declarationList.declarations.flatMap((d): [FunctionLike, string][] =>
      d.initializer && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer))
        ? [[d.initializer, d.name.getText(source)]]
        : [],
    );
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
    // `as` (but `as const`) on a read item or on one of its attributes, whatever it is called ...
    const castOf = (name: string) =>
      new RegExp(`\\b${name}\\b(?:\\??\\.\\w+|\\[[^\\]]*\\])*\\??\\s+as\\s+(?!const\\b)`);
    const readCast = castOf('(?:Item|Items|Attributes|item|items|stored|indexed)');
    for (const file of storeModules()) {
      const name = path.relative(root, file).split(path.sep).join('/');
      const text = readFileSync(file, 'utf8');
      // ... or on a name destructured from what an entity parsed
      const parsedNames = [
        ...text.matchAll(/const \{([^}]*)\}\s*=\s*(?:await\s+)?[\w.]+\.(?:parse|parsePart|pick)\(/g),
      ]
        .flatMap(([, names]) => names!.split(','))
        .map((part) => /(?:\.\.\.|:\s*)?(\w+)\s*(?:=.*)?$/.exec(part.trim())?.[1])
        .filter((found): found is string => found !== undefined);
      const patterns = [/\bas unknown as\b/, readCast, ...parsedNames.map(castOf)];
      text.split('\n').forEach((line, i) => {
        const comment = /^\s*(?:\/\/|\/?\*)/.test(line);
        if (!comment && patterns.some((pattern) => pattern.test(line)))
          casts.push(`${name}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(casts).toEqual([]);
  });

  it('returns parsed items from functions/store/, never the raw Item', () => {
    // dynamodb.ts holds the raw idioms every store builds on; entities/ parse what they are given
    const rawType = /\b(?:Item|Items|StoredItem)\b|Record<string,\s*unknown>/;
    const rawRead =
      /^(?:await\s+)?(?:queryAll|batchGetAll|queryPages|scanPages)\(|\.(?:Items?|Attributes)\s*$/;
    const raw: string[] = [];
    for (const file of storeModules()) {
      const name = path.relative(root, file).split(path.sep).join('/');
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      for (const [fn, fnName] of exportedFunctions(source)) {
        const declared = fn.type?.getText(source);
        const body = fn.body && !ts.isBlock(fn.body) ? fn.body.getText(source) : undefined;
        if (declared ? rawType.test(declared) : body !== undefined && rawRead.test(body)) {
          const line = source.getLineAndCharacterOfPosition(fn.getStart(source)).line + 1;
          raw.push(`${name}:${line}: ${fnName} returns ${declared ?? body}`);
        }
      }
    }
    expect(raw).toEqual([]);
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
