// The demo workspace seeded by `npm start` on first start (decisions.md: every state shown).
// The workspace issue fills this in; until then the demo has only its companies, users and keys.
import type { DemoAccounts } from '../accounts/demo-accounts';

export async function seedDemoWorkspace(_accounts: DemoAccounts): Promise<void> {
  // Filled by the workspace data issue.
}
