// Writes addresses into a known-dead or known-complainer list (keys in list-keys.ts), 25 per
// BatchWrite, retrying unprocessed items; re-importing an address only refreshes it.
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { knownAddressIndex, knownAddressKey, listEmail, type ListKind } from './list-keys';
import { normalizeEmail } from './normalize';
import { checkSyntax } from './syntax';

export interface ImportSummary {
  imported: number;
  skipped: string[];
}

/** One address per line, or the first cell of a CSV row; blank lines and "#" comments are ignored. */
export function parseListFile(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const cell = (line.split(/[,;\t]/)[0] ?? '').trim().replace(/^"(.*)"$/, '$1');
    if (cell && !cell.startsWith('#')) out.push(cell);
  }
  return out;
}

export async function importKnownAddresses(
  client: DynamoDBDocumentClient,
  table: string,
  input: { kind: ListKind; scope: string; emails: readonly string[]; now?: Date },
): Promise<ImportSummary> {
  const importedAt = (input.now ?? new Date()).toISOString();
  const skipped: string[] = [];
  const unique = new Map<string, Record<string, unknown>>();
  for (const raw of input.emails) {
    const n = normalizeEmail(raw);
    if (!checkSyntax(n.email).valid) {
      skipped.push(raw);
      continue;
    }
    const email = listEmail(n.email);
    unique.set(email, {
      ...knownAddressKey(input.scope, input.kind, email),
      ...knownAddressIndex(input.scope, input.kind, email),
      email,
      kind: input.kind,
      scope: input.scope,
      importedAt,
    });
  }
  const items = [...unique.values()];
  for (let i = 0; i < items.length; i += 25) {
    let requests = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    for (let round = 0; requests.length > 0; round++) {
      if (round >= 8) throw new Error('Known-address import: BatchWrite kept returning unprocessed items');
      if (round > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** round));
      const out = await client.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
      requests = (out.UnprocessedItems?.[table] ?? []) as typeof requests;
    }
  }
  return { imported: items.length, skipped };
}
