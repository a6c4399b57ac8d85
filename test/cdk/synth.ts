// The stacks as the CDK tests synthesize them: never bundled (`aws:cdk:bundling-stacks: []` stages a
// placeholder; bundling.test.ts bundles), with the app's feature flags, and optionally under cdk-nag.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { createMailvet, featureFlags, type MailvetOptions, type MailvetStacks } from '../../lib/mailvet';

/** An app that never bundles. */
export const bareApp = (context: Record<string, unknown> = {}): App =>
  new App({ context: { ...featureFlags, 'aws:cdk:bundling-stacks': [], ...context } });

export interface MailvetTemplates {
  stacks: MailvetStacks;
  api: Template;
  data: Template;
}

/** Both stacks of mailvet with these options, and their templates. */
export function synthMailvet(options: MailvetOptions = {}): MailvetTemplates {
  const stacks = createMailvet(bareApp(), options);
  return { stacks, api: Template.fromStack(stacks.api), data: Template.fromStack(stacks.stateful) };
}

export interface NagReport {
  pluginReports: {
    pluginName: string;
    conclusion: string;
    violations: { ruleName: string; severity: string }[];
  }[];
}

/**
 * Builds an app with `build` and synthesizes it under cdk-nag's AwsSolutions pack. Synthesis goes on past
 * nag errors, so the report, not an exception, tells the test what failed.
 */
export function synthWithNag(build: (app: App) => void): { app: App; report: NagReport } {
  const app = bareApp({ '@aws-cdk/core:failSynthOnValidationErrors': false });
  build(app);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const assembly = app.synth();
  const report = JSON.parse(
    fs.readFileSync(path.join(assembly.directory, 'validation-report.json'), 'utf8'),
  ) as NagReport;
  return { app, report };
}

/** The rule names of a report's errors (nag's `error` and `fatal` findings; warnings are not counted). */
export const nagErrorsOf = (report: NagReport): string[] =>
  report.pluginReports.flatMap((r) =>
    r.violations.filter((v) => v.severity === 'error' || v.severity === 'fatal').map((v) => v.ruleName),
  );

/** What every bucket's properties include: public access blocked and S3-managed encryption. */
export const privateBucketProperties = {
  PublicAccessBlockConfiguration: {
    BlockPublicAcls: true,
    BlockPublicPolicy: true,
    IgnorePublicAcls: true,
    RestrictPublicBuckets: true,
  },
  BucketEncryption: {
    ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
  },
};
