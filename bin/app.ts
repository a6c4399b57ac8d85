// The CDK app (`npx cdk synth|deploy`): mailvet's stacks with cdk-nag's AwsSolutions checks applied.
import { App, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import {
  contextCount,
  contextFlag,
  contextList,
  contextOrigin,
  createMailvet,
  featureFlags,
} from '../lib/mailvet';

const app = new App({ context: featureFlags });
/** A context given as text; empty counts as unset. */
const text = (name: string): string | undefined =>
  (app.node.tryGetContext(name) as string | undefined) || undefined;
// `cdk deploy -c mailvet:prefix=mailvet-dev -c mailvet:removalPolicy=destroy` for a throwaway stage.
const prefix = app.node.tryGetContext('mailvet:prefix') as string | undefined;
const removal = app.node.tryGetContext('mailvet:removalPolicy') as string | undefined;
if (removal !== undefined && removal !== 'retain' && removal !== 'destroy')
  throw new Error(`mailvet:removalPolicy must be retain or destroy, not ${removal}`);

createMailvet(app, {
  prefix,
  removalPolicy: removal === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
  // `-c alarmEmail=ops@example.com`: alarms also arrive by email (confirm the subscription once).
  alarmEmail: text('alarmEmail'),
  // `-c apiCorsOrigins=https://app.example.com,https://admin.example.com`: browsers there may call the API.
  apiCorsOrigins: contextList(app.node.tryGetContext('apiCorsOrigins')),
  // `-c consoleOrigin=https://d111111abcdef8.cloudfront.net` (the ConsoleUrl output): the only page
  // origin, with apiCorsOrigins, whose browsers may use the presigned upload and download URLs.
  consoleOrigin: contextOrigin('consoleOrigin', app.node.tryGetContext('consoleOrigin')),
  // `-c defaultMonthlyQuota=5000 -c defaultCredits=100`: the plan of companies without their own.
  usageDefaults: {
    monthlyQuota: contextCount('defaultMonthlyQuota', app.node.tryGetContext('defaultMonthlyQuota')),
    credits: contextCount('defaultCredits', app.node.tryGetContext('defaultCredits')),
  },
  // docs/deploy.md, "Mailbox probing": -c smtpProbe=true -c smtpHeloName=probe.mail.yourdomain.com
  // -c smtpMailFrom=probe@mail.yourdomain.com -c smtpSocksSecret=mailvet/socks-pool
  probing: {
    enabled: contextFlag('smtpProbe', app.node.tryGetContext('smtpProbe')),
    heloName: text('smtpHeloName'),
    mailFrom: text('smtpMailFrom'),
    socksSecret: text('smtpSocksSecret'),
  },
  // `-c inviteFrom=invites@yourdomain.com` (an SES-verified identity): invite emails are sent.
  invites: { from: text('inviteFrom'), identity: text('inviteIdentity') },
  // `-c apiReservedConcurrency=0` in an account whose Lambda concurrency quota is still reduced.
  apiReservedConcurrency: contextCount(
    'apiReservedConcurrency',
    app.node.tryGetContext('apiReservedConcurrency'),
  ),
  alarms: { apiLatencyP99Ms: contextCount('apiLatencyP99Ms', app.node.tryGetContext('apiLatencyP99Ms')) },
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
