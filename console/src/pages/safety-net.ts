// Safety Net: the platform connections, the emails stopped, the allowlist (safety-net-connections.ts),
// and the mailboxes and sequences synced from Outreach and Salesloft, each with its switch.
import { ApiError, type Api, type SafetyNetMailbox, type Sequence } from '../api';
import { html } from '../html';
import { ListView, Switch, usePagedList, useSwitches, type Column } from '../list';
import { PageTitle } from '../ui';
import { Allowlist, Connections, Preventions } from './safety-net-connections';

export function SafetyNetPage({ api }: { api: Api }) {
  return html`<section>
    <${PageTitle}>Safety Net<//>
    <p class="muted">
      The Safety Net reads every email scheduled in your sales-engagement platforms and stops those to risky
      addresses before they go. Switch it on for the mailboxes and sequences to protect.
    </p>
    <${Connections} api=${api} />
    <${Preventions} api=${api} />
    <${Mailboxes} api=${api} />
    <${Sequences} api=${api} />
    <${Allowlist} api=${api} />
  </section>`;
}

function Mailboxes({ api }: { api: Api }) {
  const list = usePagedList((page) => api.listSafetyNetMailboxes(page), []);
  const switches = useSwitches();
  const columns: Column<SafetyNetMailbox>[] = [
    { title: 'Mailbox', cell: (m) => m.email },
    { title: 'Platforms', cell: (m) => m.integrations.map((i) => i.service).join(', ') },
    {
      title: 'Safety Net',
      cell: (m) =>
        html`<${Switch}
          id=${`sn-mailbox-${m.id}`}
          label=${`Safety Net for ${m.email}`}
          checked=${switches.checked(m.id, m.activated)}
          onToggle=${(next: boolean) =>
            switches.set(m.id, async () => (await api.setSafetyNetMailbox(m.id, next)).activated)}
        />`,
    },
  ];
  return html`<h2>Mailboxes</h2>
    <${ListView}
      list=${list}
      rowsOf=${(data: { mailboxes: SafetyNetMailbox[] }) => data.mailboxes}
      what="Safety Net mailboxes"
      label="Safety Net mailboxes"
      columns=${columns}
      testId="safety-net-mailboxes"
      empty="No Safety Net mailboxes."
      error=${switches.error}
    />`;
}

const sequenceRefusal = (e: unknown) =>
  e instanceof ApiError && e.status === 403 && e.message !== 'Invalid API key'
    ? new Error('This API key cannot switch sequences: its creator lacks the permission. Ask an admin.')
    : e;

function Sequences({ api }: { api: Api }) {
  const list = usePagedList((page) => api.listSequences(page), []);
  const switches = useSwitches(sequenceRefusal);
  // One call switches the sequence for every owner it appears under, so the state is kept per sequence.
  const key = (s: Sequence) => s.crmSequenceId + s.service;
  const columns: Column<Sequence>[] = [
    {
      title: 'Sequence',
      cell: (s) => html`${s.name} <span class="muted">#${s.crmSequenceId}</span>`,
    },
    { title: 'Owner', cell: (s) => `${s.owner.firstName} ${s.owner.lastName}` },
    { title: 'Platform', cell: (s) => s.service },
    {
      title: 'Safety Net',
      cell: (s) =>
        html`<${Switch}
          id=${`sn-sequence-${s.id}`}
          label=${`Safety Net for ${s.name} (${s.owner.firstName} ${s.owner.lastName})`}
          checked=${switches.checked(key(s), s.activated)}
          onToggle=${(next: boolean) =>
            switches.set(key(s), async () => (await api.setSequence(s.id, next)).activated)}
        />`,
    },
  ];
  return html`<h2>Sequences</h2>
    <${ListView}
      list=${list}
      rowsOf=${(data: { sequences: Sequence[] }) => data.sequences}
      what="sequences"
      label="Safety Net sequences"
      columns=${columns}
      testId="safety-net-sequences"
      empty="No Safety Net sequences."
      error=${switches.error}
    />`;
}
