// Bundles one function for real with the local esbuild (stacks.test.ts skips bundling for speed), then
// loads the bundle and calls its handler, so a bundling break shows up here and not at deploy time.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { functionByName } from '../../functions/wiring';
import { MailvetFunction } from '../../lib/mailvet-function';

let bundleDir: string;
let template: Template;

beforeAll(() => {
  const app = new App();
  const stack = new Stack(app, 'Bundling');
  new MailvetFunction(stack, 'notFound', {
    spec: functionByName('notFound'),
    environment: { TABLE_NAME: 't', BUCKET_NAME: 'b' },
  });
  const assembly = app.synth();
  template = Template.fromStack(stack);
  const [fn] = Object.values(template.findResources('AWS::Lambda::Function'));
  const s3Key = (fn!.Properties as { Code: { S3Key: string } }).Code.S3Key;
  bundleDir = path.join(assembly.directory, `asset.${s3Key.replace(/\.zip$/, '')}`);
});

test('bundles a minified CommonJS file with its source map', () => {
  expect(fs.readdirSync(bundleDir).sort()).toEqual(['index.js', 'index.js.map']);
  const source = fs.readFileSync(path.join(bundleDir, 'index.js'), 'utf8');
  // @middy/core is ESM-only; bundled to CommonJS it must not leave an `import` behind.
  expect(source).not.toMatch(/^import /m);
  expect(source).toContain('sourceMappingURL=index.js.map');
  template.hasResourceProperties('AWS::Lambda::Function', { Handler: 'index.handler' });
});

test('the bundle loads outside the repository and its handler answers', async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const bundle = require(path.join(bundleDir, 'index.js')) as {
    handler: (event: unknown, context: unknown) => Promise<APIGatewayProxyStructuredResultV2>;
  };
  const response = await bundle.handler({ rawPath: '/nope', headers: {}, requestContext: {} }, {});
  expect(response.statusCode).toBe(404);
  expect(JSON.parse(response.body as string)).toEqual({ error: 'Not found' });
});
