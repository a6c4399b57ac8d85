// SMTP mailbox probing in a deployment (contexts smtpProbe, smtpHeloName, smtpMailFrom,
// smtpSocksSecret): the names every function sees, the SOCKS pool's secret for the functions that open
// SMTP sessions (read access to that one secret only), and the synth-time checks that stop a
// deployment whose HELO or MAIL FROM names no real mail server would accept. docs/deploy.md explains
// the PTR/HELO/SPF set-up these names belong to.
import { Annotations, Aws } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import type { MailvetFunction } from './mailvet-function';

export interface ProbingOptions {
  /** SMTP_PROBE (context `smtpProbe`). */
  enabled: boolean;
  /** SMTP_HELO_NAME (context `smtpHeloName`): the PTR name of the address probes leave from. */
  heloName?: string;
  /** SMTP_MAIL_FROM (context `smtpMailFrom`): an address of a domain whose SPF admits that address. */
  mailFrom?: string;
  /**
   * Where the SOCKS pool (socks5:// URLs with credentials) is kept (context `smtpSocksSecret`): a
   * Secrets Manager secret name or ARN, `ssm:<SecureString parameter name>`, or an SSM parameter ARN.
   */
  socksSecret?: string;
}

/**
 * The functions that open SMTP sessions: the bulk chunk (catch-all probes), the bulk probe stage and the
 * single-email validations (one address or a batch). Only they get the SOCKS secret.
 */
export const probingFunctions = [
  'validateChunk',
  'probeMailboxes',
  'validateEmail',
  'validateEmailBatch',
  'runValidation',
] as const;

/**
 * Names no mail server can verify: special-use and documentation domains (RFC 2606, 6761, 6762) and
 * private-use suffixes. A HELO under one of them has no matching PTR, a MAIL FROM domain no SPF.
 */
const unroutableSuffixes = [
  'local',
  'localhost',
  'localdomain',
  'test',
  'example',
  'invalid',
  'internal',
  'intranet',
  'lan',
  'home.arpa',
  'example.com',
  'example.net',
  'example.org',
];

const hostnamePattern = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** Why `name` cannot be a public host name a mail server checks, or undefined when it can. */
function hostProblem(name: string): string | undefined {
  const host = name.toLowerCase().replace(/\.$/, '');
  if (!hostnamePattern.test(host)) return 'is not a fully qualified host name';
  const suffix = unroutableSuffixes.find((s) => host === s || host.endsWith(`.${s}`));
  if (suffix) return `ends in .${suffix}, which no public DNS resolves`;
  return undefined;
}

/**
 * The probing settings every function gets (SMTP_PROBE decides the poll interval of single
 * validations too). With probing on, a HELO or MAIL FROM name a real server would refuse stops the
 * synth, naming the context to set.
 */
export function probingEnvironment(options: ProbingOptions | undefined): Record<string, string> {
  if (!options?.enabled) return options?.heloName || options?.mailFrom ? namesOf(options) : {};
  const problems: string[] = [];
  if (!options.heloName)
    problems.push(
      "smtpHeloName is not set: give the host name the PTR record of the probes' egress address points to (-c smtpHeloName=probe.mail.yourdomain.com)",
    );
  else {
    const problem = hostProblem(options.heloName);
    if (problem)
      problems.push(
        `smtpHeloName "${options.heloName}" ${problem}; use the PTR name of the probes' egress address`,
      );
  }
  if (!options.mailFrom)
    problems.push(
      'smtpMailFrom is not set: give an address of a domain whose SPF record admits the egress address (-c smtpMailFrom=probe@mail.yourdomain.com)',
    );
  else {
    const at = options.mailFrom.lastIndexOf('@');
    const local = options.mailFrom.slice(0, at);
    const domain = options.mailFrom.slice(at + 1);
    const problem = at < 1 || /[\s<>]/.test(local) ? 'is not an address (local@domain)' : hostProblem(domain);
    if (problem)
      problems.push(`smtpMailFrom "${options.mailFrom}" ${problem}; use an address of a domain with SPF`);
  }
  if (problems.length > 0)
    throw new Error(
      `Mailbox probing is on (smtpProbe=true) but real mail servers would refuse its names:\n- ${problems.join('\n- ')}\n` +
        'See docs/deploy.md, "Mailbox probing".',
    );
  return { SMTP_PROBE: 'true', ...namesOf(options) };
}

function namesOf(options: ProbingOptions): Record<string, string> {
  const env: Record<string, string> = {};
  if (options.heloName) env.SMTP_HELO_NAME = options.heloName;
  if (options.mailFrom) env.SMTP_MAIL_FROM = options.mailFrom;
  return env;
}

/** The secret's reference for SMTP_SOCKS_PROXY_SECRET and the one ARN its reader may read. */
export function socksSecretOf(value: string): { reference: string; action: string; arn: string } {
  const scoped = (service: string, resource: string) =>
    `arn:${Aws.PARTITION}:${service}:${Aws.REGION}:${Aws.ACCOUNT_ID}:${resource}`;
  if (/^arn:[^:]+:ssm:/.test(value))
    return { reference: `ssm:${value}`, action: 'ssm:GetParameter', arn: value };
  if (value.startsWith('ssm:')) {
    const name = value.slice('ssm:'.length);
    if (!/^\/?[A-Za-z0-9_.\-/]+$/.test(name))
      throw new Error(`smtpSocksSecret: "${value}" is not an SSM parameter name`);
    return {
      reference: `ssm:${name}`,
      action: 'ssm:GetParameter',
      arn: scoped('ssm', `parameter/${name.replace(/^\//, '')}`),
    };
  }
  if (/^arn:[^:]+:secretsmanager:/.test(value))
    return { reference: `secretsmanager:${value}`, action: 'secretsmanager:GetSecretValue', arn: value };
  if (!/^[A-Za-z0-9/_+=.@-]+$/.test(value))
    throw new Error(
      `smtpSocksSecret: "${value}" is not a Secrets Manager secret name or ARN, nor ssm:<parameter>`,
    );
  // Secrets Manager appends six random characters to a secret's name in its ARN.
  return {
    reference: `secretsmanager:${value}`,
    action: 'secretsmanager:GetSecretValue',
    arn: scoped('secretsmanager', `secret:${value}-??????`),
  };
}

/**
 * Gives the probing functions the SOCKS secret's reference and read access to that secret alone (the
 * AWS managed key decrypts it; a customer managed key needs kms:Decrypt added). Without a secret, probes
 * leave from Lambda's own addresses, which have no PTR of yours and usually no port 25: a warning says so.
 */
export function grantSocksSecret(
  scope: Construct,
  options: ProbingOptions | undefined,
  functions: ReadonlyMap<string, MailvetFunction>,
): void {
  if (!options?.enabled) return;
  if (!options.socksSecret) {
    Annotations.of(scope).addWarning(
      "Mailbox probing is on without smtpSocksSecret: probes connect from Lambda's own addresses, whose " +
        'port 25 AWS blocks by default and whose reverse DNS is not your HELO name, so most probes will end ' +
        'inconclusive. See docs/deploy.md, "Mailbox probing".',
    );
    return;
  }
  const secret = socksSecretOf(options.socksSecret);
  for (const name of probingFunctions) {
    const fn = functions.get(name);
    if (!fn)
      throw new Error(`No function named ${name} in functions/wiring.ts (lib/probing.ts probingFunctions)`);
    fn.addEnvironment('SMTP_SOCKS_PROXY_SECRET', secret.reference);
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: [secret.action], resources: [secret.arn] }));
  }
}
