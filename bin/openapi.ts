// `npm run openapi`: writes docs/openapi.json from the route table and the handlers' zod schemas.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from '../functions/http/openapi';

const target = path.resolve(__dirname, '..', 'docs', 'openapi.json');
writeFileSync(target, JSON.stringify(buildOpenApiDocument(), null, 2) + '\n');
process.stdout.write(`wrote ${target}\n`);
