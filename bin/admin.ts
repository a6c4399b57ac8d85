// `npm run admin -- ...`: the operator's tool for companies, plans and usage, against the local runtime
// or a deployed table (see local/connect.ts), like `npm run keys`. docs/usage.md describes it.
import { parseArgs } from 'node:util';
import { getCompany } from '../functions/domain/accounts/accounts';
import { onboardCompany, parseOnboardingInput } from '../functions/domain/accounts/onboarding';
import { addCredits, readUsage, setMonthlyQuota, usageQuery } from '../functions/domain/usage';
import { parseQuery } from '../functions/domain/workspace/query';
import { connect } from '../local/connect';

const usage = `usage:
  npm run admin -- company create   --name <name> --admin-email <email> [--admin-name <name>]
                                    [--seats <n>] [--monthly-quota <n>] [--credits <n>]
  npm run admin -- company set-plan --company <companyId> --monthly-quota <n>
  npm run admin -- credits add      --company <companyId> --amount <n>
  npm run admin -- usage            --company <companyId> [--month YYYY-MM]`;

const options = {
  name: { type: 'string' },
  'admin-email': { type: 'string' },
  'admin-name': { type: 'string' },
  seats: { type: 'string' },
  'monthly-quota': { type: 'string' },
  credits: { type: 'string' },
  company: { type: 'string' },
  amount: { type: 'string' },
  month: { type: 'string' },
} as const;

/** A whole number option, or undefined when absent; anything else is a usage error. */
function wholeNumber(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a whole number, got "${value}"`);
  return Number(value);
}

function required<T>(name: string, value: T | undefined): T {
  if (value === undefined) throw new Error(`--${name} is required\n${usage}`);
  return value;
}

function print(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

async function run(command: string, values: Record<string, string | undefined>): Promise<void> {
  switch (command) {
    case 'company create': {
      const created = await onboardCompany(
        parseOnboardingInput({
          name: required('name', values.name),
          adminEmail: required('admin-email', values['admin-email']),
          ...(values['admin-name'] === undefined ? {} : { adminName: values['admin-name'] }),
          ...optionalNumber('seats', values.seats),
          ...optionalNumber('monthlyQuota', values['monthly-quota'], 'monthly-quota'),
          ...optionalNumber('credits', values.credits),
        }),
      );
      return print({ ...created, note: 'the API key is shown once; store it now' });
    }
    case 'company set-plan': {
      const companyId = await existingCompany(values.company);
      const quota = required('monthly-quota', wholeNumber('monthly-quota', values['monthly-quota']));
      await setMonthlyQuota(companyId, quota);
      return print(await readUsage(companyId, {}));
    }
    case 'credits add': {
      const companyId = await existingCompany(values.company);
      await addCredits(companyId, required('amount', wholeNumber('amount', values.amount)));
      return print(await readUsage(companyId, {}));
    }
    case 'usage': {
      const companyId = await existingCompany(values.company);
      const query = parseQuery(usageQuery, values.month === undefined ? {} : { month: values.month });
      return print({ companyId, ...(await readUsage(companyId, query)) });
    }
    default:
      throw new Error(usage);
  }
}

function optionalNumber(key: string, value: string | undefined, flag = key): Record<string, number> {
  const n = wholeNumber(flag, value);
  return n === undefined ? {} : { [key]: n };
}

async function existingCompany(companyId: string | undefined): Promise<string> {
  await getCompany(required('company', companyId));
  return companyId!;
}

async function main(argv: string[]): Promise<void> {
  const [first, second] = argv;
  const command = first === 'usage' ? 'usage' : `${first ?? ''} ${second ?? ''}`;
  const rest = argv.slice(command === 'usage' ? 1 : 2);
  if (!['company create', 'company set-plan', 'credits add', 'usage'].includes(command))
    throw new Error(usage);
  const { values } = parseArgs({ args: rest, options, strict: true });
  const connection = await connect();
  try {
    process.stderr.write(`using ${connection.target}\n`);
    await run(command, values);
  } finally {
    await connection.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
