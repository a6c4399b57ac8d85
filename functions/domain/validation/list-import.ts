// Imports addresses into a known-dead or known-complainer list: each is normalised and checked, the
// invalid ones are reported, and the rest stored once each (functions/store/known-lists.ts);
// re-importing an address only refreshes it.
import { systemClock, type Clock } from '../../clock';
import { listEmail, type ListKind } from '../../store/keys';
import type { KnownAddressBatch } from '../../store/known-lists';
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

/** `write` stores a batch (functions/store/known-lists.ts knownAddressWriter, or a fake in tests). */
export async function importKnownAddresses(
  write: (batch: KnownAddressBatch) => Promise<void>,
  input: { kind: ListKind; scope: string; emails: readonly string[]; clock?: Clock },
): Promise<ImportSummary> {
  const skipped: string[] = [];
  const unique = new Set<string>();
  for (const raw of input.emails) {
    const n = normalizeEmail(raw);
    if (checkSyntax(n.email).valid) unique.add(listEmail(n.email));
    else skipped.push(raw);
  }
  const emails = [...unique];
  await write({
    kind: input.kind,
    scope: input.scope,
    emails,
    importedAt: (input.clock ?? systemClock)().toISOString(),
  });
  return { imported: emails.length, skipped };
}
