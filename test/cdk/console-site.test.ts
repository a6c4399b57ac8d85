// The web console in the API stack: a private bucket readable only by its CloudFront distribution
// (origin access control), config.json written at deploy time with the API's URL, and the API's CORS
// rule admitting exactly the console's origin. Bundling is skipped here (bundling.test.ts bundles).
import { Stack, type CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildConsoleSyncTo } from '../../console/build';
import { createMailvet, type MailvetStacks } from '../../lib/mailvet';
import { privateBucketProperties, synthMailvet, synthWithNag } from './synth';

let stacks: MailvetStacks;
let api: Template;

beforeAll(() => {
  ({ stacks, api } = synthMailvet());
});

const idOf = (construct: { node: { defaultChild?: unknown } }) =>
  Stack.of(stacks.api).getLogicalId(construct.node.defaultChild as CfnElement);
const consoleDomain = () => ({ 'Fn::GetAtt': [idOf(stacks.api.console.distribution), 'DomainName'] });

describe('console bucket', () => {
  test('is private: public access blocked, TLS only, encrypted, no ACLs', () => {
    api.hasResourceProperties('AWS::S3::Bucket', {
      ...privateBucketProperties,
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    });
    expect(api.findResources('AWS::S3::Bucket')).toHaveProperty([idOf(stacks.api.console.bucket)]);
  });

  test('admits only its CloudFront distribution, by source ARN, to read objects', () => {
    const bucket = idOf(stacks.api.console.bucket);
    const policies = Object.values(
      api.findResources('AWS::S3::BucketPolicy', { Properties: { Bucket: { Ref: bucket } } }),
    );
    expect(policies).toHaveLength(1);
    const statements = (policies[0]!.Properties.PolicyDocument as { Statement: Record<string, unknown>[] })
      .Statement;
    const allows = statements.filter((st) => st.Effect === 'Allow');
    expect(allows).toEqual([
      {
        Action: 's3:GetObject',
        Effect: 'Allow',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Condition: {
          StringEquals: {
            'AWS:SourceArn': {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':cloudfront::',
                  { Ref: 'AWS::AccountId' },
                  ':distribution/',
                  { Ref: idOf(stacks.api.console.distribution) },
                ],
              ],
            },
          },
        },
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucket, 'Arn'] }, '/*']] },
      },
    ]);
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });
});

describe('console distribution', () => {
  test('serves the bucket through origin access control, HTTPS only, index.html at the root', () => {
    api.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    api.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: { OriginAccessControlOriginType: 's3', SigningBehavior: 'always' },
    });
    api.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultRootObject: 'index.html',
        DefaultCacheBehavior: Match.objectLike({
          ViewerProtocolPolicy: 'redirect-to-https',
          AllowedMethods: ['GET', 'HEAD'],
        }),
        Origins: [
          Match.objectLike({
            DomainName: { 'Fn::GetAtt': [idOf(stacks.api.console.bucket), 'RegionalDomainName'] },
            OriginAccessControlId: { 'Fn::GetAtt': [Match.anyValue(), 'Id'] },
            S3OriginConfig: { OriginAccessIdentity: '' },
          }),
        ],
      }),
    });
  });

  test('sends the console Content-Security-Policy and the other security headers', () => {
    api.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: Match.objectLike({
        SecurityHeadersConfig: Match.objectLike({
          ContentSecurityPolicy: {
            ContentSecurityPolicy: Match.stringLikeRegexp("script-src 'self'.*connect-src 'self' https:"),
            Override: true,
          },
          FrameOptions: { FrameOption: 'DENY', Override: true },
          StrictTransportSecurity: Match.objectLike({ Override: true }),
        }),
      }),
    });
  });

  test('the stack outputs the console URL', () => {
    api.hasOutput('ConsoleUrl', { Value: { 'Fn::Join': ['', ['https://', consoleDomain()]] } });
  });
});

describe('deployment', () => {
  test('copies the build and a config.json naming the API URL, resolved at deploy time', () => {
    const deployments = Object.values(api.findResources('Custom::CDKBucketDeployment'));
    expect(deployments).toHaveLength(1);
    const props = deployments[0]!.Properties as Record<string, unknown>;
    expect(props.DestinationBucketName).toEqual({ Ref: idOf(stacks.api.console.bucket) });
    expect(props.SourceObjectKeys).toHaveLength(2);
    expect(props.Prune).toBe(true);
    expect(props.RetainOnDelete).toBe(false);
    // Source.jsonData leaves a marker in config.json that the deployment replaces with the stage URL.
    const markers = props.SourceMarkers as Record<string, unknown>[];
    expect(markers).toContainEqual(
      expect.objectContaining({ '<<marker:0xbaba:0>>': { Ref: idOf(stacks.api.api) } }),
    );
    expect(props.SystemMetadata).toEqual({ 'cache-control': 'no-cache' });
  });

  test("the console's asset build writes index.html, app.js, app.css and the favicon (what synth bundles)", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-console-'));
    try {
      buildConsoleSyncTo(dir);
      expect(readdirSync(dir)).toEqual(
        expect.arrayContaining(['index.html', 'app.js', 'app.css', 'favicon.ico']),
      );
      expect(readFileSync(path.join(dir, 'index.html'), 'utf8')).toContain('src="app.js"');
      // The signup-form widget is served by the same distribution, at /widget.js.
      expect(readFileSync(path.join(dir, 'widget.js'), 'utf8')).toContain('/v1/email/validate');
      // No file of the build points at another host: fonts and scripts are all bundled.
      expect(readFileSync(path.join(dir, 'app.css'), 'utf8')).not.toMatch(/url\(\s*["']?https?:/);
      // No source map ships, and nothing points at one.
      expect(readdirSync(dir).filter((f) => f.endsWith('.map'))).toEqual([]);
      expect(readFileSync(path.join(dir, 'app.js'), 'utf8')).not.toContain('sourceMappingURL');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('cdk-nag', () => {
  test('leaves no finding in a stack with a concrete account and region (as `cdk deploy` synthesizes it)', () => {
    const { report } = synthWithNag((app) => {
      createMailvet(app, { env: { account: '123456789012', region: 'eu-west-1' } });
    });
    expect(report.pluginReports.flatMap((r) => r.violations.map((v) => v.ruleName))).toEqual([]);
  });
});

describe('API CORS', () => {
  test("admits the console's origin (and only it) with the headers the console sends", () => {
    api.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: {
        AllowOrigins: [{ 'Fn::Join': ['', ['https://', consoleDomain()]] }],
        AllowMethods: ['*'],
        AllowHeaders: ['content-type', 'x-api-key', 'idempotency-key', 'authorization'],
        ExposeHeaders: ['retry-after'],
        MaxAge: 3600,
      },
    });
  });
});

describe('widget API', () => {
  const widgetApiId = () => idOf(stacks.api.widgetApi);

  test('has no CORS rule of its own: the function answers for the key origin alone', () => {
    const props = api.findResources('AWS::ApiGatewayV2::Api')[widgetApiId()]!.Properties;
    expect(props.ProtocolType).toBe('HTTP');
    expect(props).not.toHaveProperty('CorsConfiguration');
  });

  test('routes the validate call and its preflight, and nothing else, to validateEmail', () => {
    const routes = Object.values(
      api.findResources('AWS::ApiGatewayV2::Route', { Properties: { ApiId: { Ref: widgetApiId() } } }),
    ).map((r) => r.Properties.RouteKey as string);
    expect(routes.sort()).toEqual(['OPTIONS /v1/email/validate', 'POST /v1/email/validate']);
    const integrations = Object.values(
      api.findResources('AWS::ApiGatewayV2::Integration', { Properties: { ApiId: { Ref: widgetApiId() } } }),
    );
    expect(integrations).toHaveLength(1);
    expect(JSON.stringify(integrations[0]!.Properties.IntegrationUri)).toContain(
      idOf(stacks.api.functions.get('validateEmail')!),
    );
    // Payload 2.0 carries the visitor's address (requestContext.http.sourceIp) for the per-IP limit.
    expect(integrations[0]!.Properties.PayloadFormatVersion).toBe('2.0');
  });

  test('is throttled and logged, and the stack outputs its URL', () => {
    api.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      ApiId: { Ref: widgetApiId() },
      DefaultRouteSettings: Match.objectLike({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 }),
      AccessLogSettings: Match.objectLike({ Format: Match.stringLikeRegexp('sourceIp') }),
    });
    api.hasOutput('WidgetApiUrl', Match.anyValue());
  });
});
