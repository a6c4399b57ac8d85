// `npm run client:types`: writes client/schema.ts, the TypeScript types of docs/openapi.json, with
// openapi-typescript (formatted by the project's prettier settings so `npm run lint` passes it as is).
// `--stdout` prints the text instead (the test compares it with the committed file in a child process,
// since openapi-typescript's dependencies are ESM that Jest's CommonJS mode cannot load).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import prettier from 'prettier';

const openApiPath = path.resolve(__dirname, '..', 'docs', 'openapi.json');
const clientTypesPath = path.resolve(__dirname, '..', 'client', 'schema.ts');

/** The text client/schema.ts must have for the current docs/openapi.json. */
async function generateClientTypes(): Promise<string> {
  const document = JSON.parse(readFileSync(openApiPath, 'utf8')) as Parameters<typeof openapiTS>[0];
  const header =
    '// Generated from docs/openapi.json by `npm run client:types` (openapi-typescript); do not edit.\n\n';
  const source = header + astToString(await openapiTS(document));
  const config = await prettier.resolveConfig(clientTypesPath);
  return prettier.format(source, { ...config, filepath: clientTypesPath });
}

if (require.main === module) {
  generateClientTypes()
    .then((text) => {
      if (process.argv.includes('--stdout')) return void process.stdout.write(text);
      writeFileSync(clientTypesPath, text);
      process.stdout.write(`wrote ${clientTypesPath}\n`);
    })
    .catch((error: unknown) => {
      process.stderr.write(`client:types: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
}
