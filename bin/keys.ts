// `npm run keys -- create|revoke|list`: API keys for a company's user, against the local runtime or a
// deployed table (see local/connect.ts). The raw key is printed once and stored only as SHA-256.
import { parseArgs } from 'node:util';
import { createApiKey, listApiKeys, revokeApiKey } from '../functions/domain/accounts/accounts';
import { createPublishableKey } from '../functions/domain/accounts/publishable';
import { readAccountUser } from '../functions/store/accounts';
import { connect } from '../local/connect';

const usage = `usage:
  npm run keys -- create --company <companyId> --user <email> [--name <label>]
  npm run keys -- create --company <companyId> --user <email> --publishable --origin <https://site.example>
  npm run keys -- revoke --company <companyId> --key <keyId>
  npm run keys -- list   --company <companyId>`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      company: { type: 'string' },
      user: { type: 'string' },
      name: { type: 'string' },
      key: { type: 'string' },
      publishable: { type: 'boolean' },
      origin: { type: 'string' },
    },
  });
  if (!values.company || !['create', 'revoke', 'list'].includes(command ?? '')) throw new Error(usage);
  const connection = await connect();
  try {
    process.stderr.write(`using ${connection.target}\n`);
    if (command === 'create') {
      if (!values.user) throw new Error(usage);
      const user = await readAccountUser(values.company, values.user);
      if (!user) throw new Error(`No user ${values.user} in company ${values.company}`);
      const owner = { companyId: values.company, userId: user.userId, userEmail: user.email };
      if (values.publishable || values.origin) {
        // A publishable key goes into a web page: it is shown once too, but it is no secret.
        if (!values.publishable || !values.origin) throw new Error(usage);
        const { rawKey, record } = await createPublishableKey({
          ...owner,
          name: values.name ?? 'widget',
          origin: values.origin,
        });
        process.stdout.write(
          JSON.stringify({ publishableKey: rawKey, keyId: record.keyId, origin: record.origin }, null, 2) +
            '\n',
        );
        return;
      }
      const { rawKey, record } = await createApiKey({ ...owner, name: values.name ?? 'cli' });
      process.stdout.write(
        JSON.stringify({ apiKey: rawKey, keyId: record.keyId, note: 'shown once; store it now' }, null, 2) +
          '\n',
      );
    } else if (command === 'revoke') {
      if (!values.key) throw new Error(usage);
      process.stdout.write(JSON.stringify(await revokeApiKey(values.company, values.key), null, 2) + '\n');
    } else {
      process.stdout.write(JSON.stringify(await listApiKeys(values.company), null, 2) + '\n');
    }
  } finally {
    await connection.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
