// The demo workspace seeded by `npm start` on first start (docs/api.md: every state shown). Acme gets
// both connection statuses, a mailbox without reputation yet, active and invited users, users without
// mailboxes, Safety Net mailboxes in one and in both integrations, and sequences of both services with
// several owners; Globex a little of each, to show tenant isolation. Dates are relative to `now`.
import { systemClock, type Clock } from '../../functions/clock';
import { addDays, utcDate } from '../../functions/domain/workspace/dates';
import { importWorkspace } from '../../functions/domain/workspace/import';
import type { WorkspaceImportInput } from '../../functions/domain/workspace/import-schema';
import type { DemoAccounts } from './accounts';

/** A deterministic daily series: a gentle walk around `base`, ending `endOffset` days before today. */
function series(
  today: string,
  days: number,
  base: number,
  seed: number,
  endOffset = 0,
): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  let value = base;
  let state = seed;
  for (let i = days - 1; i >= 0; i--) {
    state = (state * 1103515245 + 12345) % 2147483648;
    value = Math.max(0, Math.min(100, value + ((state >> 16) % 7) - 3));
    out[addDays(today, -(i + endOffset))] = Math.round(value);
  }
  return out;
}

const at = (date: string, time = '09:00:00.000Z') => `${date}T${time}`;

function demoWorkspace(accounts: DemoAccounts, now: Date): WorkspaceImportInput[] {
  const today = utcDate(now);
  const ada = { email: 'ada.admin@acme.example', firstName: 'Ada', lastName: 'Admin' };
  const max = { email: 'max.member@acme.example', firstName: 'Max', lastName: 'Member' };
  const sam = { email: 'sam.sales@acme.example', firstName: 'Sam', lastName: 'Sales' };
  const otto = { email: 'otto.ops@acme.example', firstName: 'Otto', lastName: 'Ops' };
  const gina = { email: 'gina.admin@globex.example', firstName: 'Gina', lastName: 'Admin' };
  const acme: WorkspaceImportInput = {
    companyId: accounts.acmeId,
    connectedMailboxes: [
      {
        email: ada.email,
        provider: 'google',
        connectionStatus: 'connected',
        connectedAt: at(addDays(today, -420)),
        owner: ada,
        reputation: series(today, 400, 88, 1),
      },
      {
        email: 'ada@acme-mail.example',
        provider: 'microsoft',
        connectionStatus: 'credentials_error',
        connectedAt: at(addDays(today, -200)),
        statusUpdatedAt: at(addDays(today, -12), '14:30:00.000Z'),
        owner: ada,
        reputation: series(today, 180, 71, 2, 12),
      },
      {
        email: max.email,
        provider: 'google',
        connectionStatus: 'connected',
        connectedAt: at(addDays(today, -90)),
        owner: max,
        reputation: series(today, 85, 64, 3),
      },
      {
        email: 'max@acme-mail.example',
        provider: 'microsoft',
        connectionStatus: 'connected',
        connectedAt: at(addDays(today, -60)),
        owner: max,
        reputation: series(today, 55, 93, 4),
      },
      {
        // Connected two days ago: reputation has not started accruing (null everywhere).
        email: sam.email,
        provider: 'google',
        connectionStatus: 'connected',
        connectedAt: at(addDays(today, -2)),
        owner: sam,
      },
    ],
    users: [
      // The accounts module's Ada and Max are upserted too (their permissions are kept).
      {
        id: accounts.users[0]?.userId,
        email: ada.email,
        name: 'Ada Admin',
        role: 'admin',
        status: 'active',
        createdAt: '2026-01-05T09:00:00.000Z',
      },
      {
        id: accounts.users[1]?.userId,
        email: max.email,
        name: 'Max Member',
        role: 'member',
        status: 'active',
        createdAt: '2026-01-05T09:00:00.000Z',
      },
      {
        email: otto.email,
        name: 'Otto Ops',
        role: 'member',
        status: 'active',
        createdAt: at(addDays(today, -30)),
      },
      {
        email: sam.email,
        name: 'Sam Sales',
        role: 'member',
        status: 'invited',
        inviteExpiresAt: at(addDays(today, 5)),
      },
      {
        email: 'nina.new@acme.example',
        name: 'Nina New',
        role: 'admin',
        status: 'invited',
        inviteExpiresAt: at(addDays(today, 6)),
      },
    ],
    safetyNetMailboxes: [
      {
        email: ada.email,
        activated: true,
        integrations: [
          { service: 'outreach', externalId: 'or-user-1' },
          { service: 'salesloft', externalId: 'sl-user-1' },
        ],
      },
      {
        email: max.email,
        activated: false,
        integrations: [{ service: 'outreach', externalId: 'or-user-2' }],
      },
      {
        email: 'rita.rep@acme.example',
        activated: true,
        integrations: [{ service: 'salesloft', externalId: 'sl-user-7' }],
      },
      { email: sam.email, integrations: [{ service: 'salesloft', externalId: 'sl-user-9' }] },
    ],
    safetyNetSequences: [
      { service: 'outreach', crmSequenceId: '101', name: 'Q3 Outbound', activated: true, owner: ada },
      { service: 'outreach', crmSequenceId: '101', name: 'Q3 Outbound', owner: max },
      { service: 'outreach', crmSequenceId: '101', name: 'Q3 Outbound', owner: sam },
      { service: 'salesloft', crmSequenceId: '5001', name: 'Renewal cadence', activated: false, owner: ada },
      { service: 'salesloft', crmSequenceId: '5001', name: 'Renewal cadence', owner: otto },
      { service: 'outreach', crmSequenceId: '102', name: 'Webinar follow-up', activated: false, owner: max },
      {
        service: 'salesloft',
        crmSequenceId: '5002',
        name: 'Webinar follow-up',
        activated: true,
        owner: otto,
      },
    ],
  };
  const globex: WorkspaceImportInput = {
    companyId: accounts.globexId,
    connectedMailboxes: [
      {
        email: gina.email,
        provider: 'google',
        connectionStatus: 'connected',
        connectedAt: at(addDays(today, -120)),
        owner: gina,
        reputation: series(today, 110, 80, 5),
      },
    ],
    users: [
      {
        id: accounts.users[2]?.userId,
        email: gina.email,
        name: 'Gina Admin',
        role: 'admin',
        status: 'active',
        createdAt: '2026-01-05T09:00:00.000Z',
      },
    ],
    safetyNetMailboxes: [
      { email: gina.email, activated: true, integrations: [{ service: 'outreach', externalId: 'gx-1' }] },
    ],
    safetyNetSequences: [
      { service: 'outreach', crmSequenceId: '9', name: 'Globex intro', activated: true, owner: gina },
    ],
  };
  return [acme, globex];
}

export async function seedDemoWorkspace(accounts: DemoAccounts, clock: Clock = systemClock): Promise<void> {
  for (const file of demoWorkspace(accounts, clock())) await importWorkspace(file, clock);
}
