// Large, realistic workspaces for benchmarks and demos (`npm run workspace:generate`): mailboxes spread
// over domains and owned by users, reputation that drifts day to day and starts a few days after the
// connection, invites among the users, Safety Net mailboxes in one or both integrations, and sequences
// with one to eight owners each. Deterministic for a given seed.
import { systemClock, type Clock } from '../../clock';
import { addDays, utcDate } from './dates';
import type { WorkspaceImportInput } from './import-schema';
import { seededRandom } from '../seeded-random';

export interface GenerateOptions {
  companyId: string;
  mailboxes: number;
  days: number;
  users: number;
  safetyNetMailboxes: number;
  sequences: number;
  seed?: number;
  clock?: Clock;
}

const firstNames = [
  'Ada',
  'Ben',
  'Cleo',
  'Dev',
  'Eli',
  'Fay',
  'Gus',
  'Hana',
  'Ivo',
  'Jun',
  'Kai',
  'Lea',
  'Mo',
  'Nia',
  'Oto',
  'Pia',
];
const lastNames = [
  'Stone',
  'Rivera',
  'Okafor',
  'Lindqvist',
  'Tanaka',
  'Moreau',
  'Novak',
  'Haddad',
  'Kowalski',
  'Silva',
];
const words = [
  'Outbound',
  'Renewal',
  'Webinar',
  'Q1',
  'Q2',
  'Q3',
  'Q4',
  'Enterprise',
  'SMB',
  'Follow-up',
  'Intro',
  'Re-engage',
  'EMEA',
  'APAC',
];
const providers = ['google', 'microsoft', 'zoho', 'smtp'];

export function generateWorkspace(options: GenerateOptions): WorkspaceImportInput {
  const rand = seededRandom(options.seed ?? 42);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const today = utcDate((options.clock ?? systemClock)());
  const domains = Array.from(
    { length: Math.max(1, Math.ceil(options.mailboxes / 200)) },
    (_, i) => `d${String(i).padStart(3, '0')}.example`,
  );
  const person = (i: number) => ({
    email: `user${String(i).padStart(5, '0')}@${domains[i % domains.length]}`,
    firstName: firstNames[i % firstNames.length]!,
    lastName: lastNames[Math.floor(i / firstNames.length) % lastNames.length]!,
  });
  const people = Array.from({ length: Math.max(options.users, 1) }, (_, i) => person(i));

  const connectedMailboxes: WorkspaceImportInput['connectedMailboxes'] = [];
  for (let i = 0; i < options.mailboxes; i++) {
    // Owners are users most of the time; some mailboxes belong to people without a seat.
    const owner = rand() < 0.9 && options.users > 0 ? pick(people) : person(options.users + i);
    // Most mailboxes were connected before the history starts (a full D days of history); a few recently.
    const age =
      rand() < 0.95 ? options.days + 3 + Math.floor(rand() * 60) : Math.floor(rand() * options.days);
    const connectedDate = addDays(today, -age);
    const reputation: Record<string, number | null> = {};
    let value = 50 + Math.floor(rand() * 50);
    // Reputation starts accruing a few days after the connection (docs/api.md).
    for (let d = Math.min(age - 3, options.days - 1); d >= 0; d--) {
      value = Math.max(0, Math.min(100, value + Math.floor(rand() * 7) - 3));
      reputation[addDays(today, -d)] = rand() < 0.03 ? null : value;
    }
    connectedMailboxes.push({
      email: `mbx${String(i).padStart(5, '0')}@${domains[i % domains.length]}`,
      provider: pick(providers),
      connectionStatus: rand() < 0.9 ? 'connected' : 'credentials_error',
      connectedAt: `${connectedDate}T${String(Math.floor(rand() * 24)).padStart(2, '0')}:00:00.000Z`,
      owner,
      reputation,
    });
  }

  const users: WorkspaceImportInput['users'] = people.slice(0, options.users).map((p, i) =>
    rand() < 0.1
      ? {
          email: p.email,
          name: `${p.firstName} ${p.lastName}`,
          role: 'member',
          status: 'invited',
          inviteExpiresAt: `${addDays(today, 1 + (i % 6))}T12:00:00.000Z`,
        }
      : {
          email: p.email,
          name: `${p.firstName} ${p.lastName}`,
          role: i % 10 === 0 ? 'admin' : 'member',
          status: 'active',
          createdAt: `${addDays(today, -(i % 700))}T08:00:00.000Z`,
        },
  );

  const safetyNetMailboxes: WorkspaceImportInput['safetyNetMailboxes'] = [];
  for (let i = 0; i < options.safetyNetMailboxes; i++) {
    const both = rand() < 0.3;
    const first = rand() < 0.5 ? 'outreach' : 'salesloft';
    const services = both ? (['outreach', 'salesloft'] as const) : ([first] as const);
    safetyNetMailboxes.push({
      email: `sn${String(i).padStart(5, '0')}@${domains[i % domains.length]}`,
      activated: rand() < 0.6,
      integrations: services.map((service) => ({ service, externalId: `${service.slice(0, 2)}-${i}` })),
    });
  }

  const safetyNetSequences: WorkspaceImportInput['safetyNetSequences'] = [];
  for (let s = 0; safetyNetSequences.length < options.sequences; s++) {
    const service = rand() < 0.5 ? 'outreach' : 'salesloft';
    const name = `${pick(words)} ${pick(words)} ${s % 97}`;
    const activated = rand() < 0.5;
    const owners = 1 + Math.floor(rand() * 8);
    const seen = new Set<string>();
    for (let o = 0; o < owners && safetyNetSequences.length < options.sequences; o++) {
      const owner = pick(people);
      if (seen.has(owner.email)) continue;
      seen.add(owner.email);
      safetyNetSequences.push({ service, crmSequenceId: String(10_000 + s), name, activated, owner });
    }
  }
  return { companyId: options.companyId, connectedMailboxes, users, safetyNetMailboxes, safetyNetSequences };
}
