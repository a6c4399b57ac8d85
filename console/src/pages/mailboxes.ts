// Connected mailboxes with a reputation sparkline over the chosen window, and one mailbox's daily
// reputation chart for a chosen date range.
import { useEffect, useState } from 'preact/hooks';
import type { Api, Mailbox, MailboxPage as MailboxList, ReputationPoint, ReputationRangeName } from '../api';
import { ReputationChart, Sparkline } from '../charts';
import { html } from '../html';
import { href } from '../route';
import { ListView, usePagedList, type Column } from '../list';
import { ErrorMessage, formatDate, Loading, PageTitle, useLoad, valueTo } from '../ui';
import { ConnectMailboxForm, DisconnectButton } from './connect-mailbox';

const pageSize = 10;

export const reputationRanges: { name: ReputationRangeName; label: string }[] = [
  { name: 'today', label: 'Today' },
  { name: 'yesterday', label: 'Yesterday' },
  { name: 'last7Days', label: 'Last 7 days' },
  { name: 'thisWeek', label: 'This week' },
  { name: 'lastWeek', label: 'Last week' },
  { name: 'last30Days', label: 'Last 30 days' },
  { name: 'thisMonth', label: 'This month' },
  { name: 'lastMonth', label: 'Last month' },
];

const reputationText = (value: number | null) => (value === null ? 'no data' : `${value}`);

export function MailboxesPage({ api }: { api: Api }) {
  const [range, setRange] = useState<ReputationRangeName>('last30Days');
  const list = usePagedList(
    (page) => api.listMailboxes({ reputationRange: range, ...page }),
    [range],
    pageSize,
  );
  const histories = useHistories(api, list.data);
  const columns: Column<Mailbox>[] = [
    {
      title: 'Mailbox',
      cell: (m) =>
        html`<a href=${href('mailbox', m.id)}>${m.email}</a>
          <div class="muted">${m.provider}</div>`,
    },
    { title: 'Owner', cell: (m) => `${m.owner.firstName} ${m.owner.lastName}` },
    {
      title: 'Status',
      cell: (m) =>
        html`<span class=${`pill ${m.connectionStatus}`}>${m.connectionStatus.replace(/_/g, ' ')}</span>`,
    },
    { title: 'Reputation', cell: (m) => reputationText(m.reputation), num: true },
    {
      title: 'Trend',
      cell: (m) => {
        const history = histories[m.id];
        const { startDate, endDate } = list.data!.reputationRange;
        return history
          ? html`<${Sparkline}
              history=${history}
              label=${`Daily reputation of ${m.email} from ${startDate} to ${endDate}`}
            />`
          : html`<span class="muted" aria-hidden="true">…</span>`;
      },
    },
  ];

  return html`<section>
    <${PageTitle}>Connected mailboxes<//>
    <div class="field inline">
      <label for="reputation-range">Reputation window</label>
      <select
        id="reputation-range"
        value=${range}
        onChange=${(e: Event) => {
          setRange((e.target as HTMLSelectElement).value as ReputationRangeName);
          list.reset();
        }}
      >
        ${reputationRanges.map((r) => html`<option value=${r.name}>${r.label}</option>`)}
      </select>
    </div>
    <${ListView}
      list=${list}
      rowsOf=${(data: MailboxList) => data.mailboxes}
      what="mailboxes"
      label="Connected mailboxes"
      columns=${columns}
      testId="mailboxes"
      empty="No connected mailboxes."
      before=${(data: MailboxList) => {
        const { startDate, endDate } = data.reputationRange;
        return html`<p class="muted">
          ${`${data.total} mailboxes; reputation is the average from ${startDate} to ${endDate}.`}
        </p>`;
      }}
    />
    <${ConnectMailboxForm} api=${api} onConnected=${list.reload} />
  </section>`;
}

/**
 * Sparklines: each listed mailbox's daily values over the window, fetched one after the other (the
 * rate limit is per company, and the list is already on screen).
 */
function useHistories(api: Api, list: MailboxList | undefined): Record<string, ReputationPoint[]> {
  const [histories, setHistories] = useState<Record<string, ReputationPoint[]>>({});
  useEffect(() => {
    let live = true;
    setHistories({});
    if (!list) return;
    const { startDate, endDate } = list.reputationRange;
    void (async () => {
      for (const m of list.mailboxes) {
        if (!live) return;
        try {
          const detail = await api.getMailbox(m.id, { startDate, endDate });
          if (live) setHistories((h) => ({ ...h, [m.id]: detail.history }));
        } catch {
          // A sparkline is an extra: the row still shows the window's reputation.
        }
      }
    })();
    return () => {
      live = false;
    };
  }, [list]);
  return histories;
}

/** "connected since 5 Jan 2026" once; another status names both of its dates. */
function connectionText(m: {
  connectionStatus: string;
  statusUpdatedAt: string;
  connectedAt: string;
}): string {
  const status = m.connectionStatus.replace(/_/g, ' ');
  if (m.connectionStatus === 'connected' || m.statusUpdatedAt === m.connectedAt)
    return `${status} since ${formatDate(m.statusUpdatedAt)}`;
  return `${status} since ${formatDate(m.statusUpdatedAt)} (connected ${formatDate(m.connectedAt)})`;
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const daysAgo = (n: number) => isoDay(new Date(Date.now() - n * 86_400_000));

export function MailboxPage({ api, id }: { api: Api; id: string }) {
  const [span, setSpan] = useState({ startDate: daysAgo(89), endDate: daysAgo(0) });
  const [draft, setDraft] = useState(span);
  const detail = useLoad(() => api.getMailbox(id, span), [id, span]);
  const apply = (event: Event) => {
    event.preventDefault();
    setSpan(draft);
  };
  const quick = (days: number) => {
    const next = { startDate: daysAgo(days - 1), endDate: daysAgo(0) };
    setDraft(next);
    setSpan(next);
  };
  const m = detail.data;
  const points = m?.history.filter((p) => p.reputation !== null) ?? [];

  return html`<section>
    <p><a href=${href('mailboxes')}>← All mailboxes</a></p>
    <${PageTitle}>${m ? m.email : 'Mailbox'}<//>
    ${
      m &&
      html`<dl class="details">
        <div>
          <dt>Current reputation</dt>
          <dd data-testid="current-reputation">${reputationText(m.currentReputation)}</dd>
        </div>
        <div>
          <dt>Owner</dt>
          <dd>${m.owner.firstName} ${m.owner.lastName} (${m.owner.email})</dd>
        </div>
        <div>
          <dt>Provider</dt>
          <dd>${m.provider}</dd>
        </div>
        <div>
          <dt>Connection</dt>
          <dd data-testid="connection">${connectionText(m)}</dd>
        </div>
      </dl>`
    }
    ${m && html`<${DisconnectButton} api=${api} id=${m.id} email=${m.email} onDone=${() => (window.location.hash = href('mailboxes'))} />`}
    <form class="inline range" onSubmit=${apply} aria-label="Chart date range">
      <label for="start-date">From</label>
      <input
        id="start-date"
        type="date"
        value=${draft.startDate}
        max=${draft.endDate}
        onInput=${valueTo((startDate) => setDraft({ ...draft, startDate }))}
      />
      <label for="end-date">To</label>
      <input
        id="end-date"
        type="date"
        value=${draft.endDate}
        min=${draft.startDate}
        onInput=${valueTo((endDate) => setDraft({ ...draft, endDate }))}
      />
      <button type="submit">Show</button>
      <span class="quick">
        <button type="button" class="secondary" onClick=${() => quick(7)}>7 days</button>
        <button type="button" class="secondary" onClick=${() => quick(30)}>30 days</button>
        <button type="button" class="secondary" onClick=${() => quick(90)}>90 days</button>
      </span>
    </form>
    <${ErrorMessage} error=${detail.error} />
    ${detail.loading && html`<${Loading} what="reputation" />`}
    ${
      m &&
      html`<figure>
        <${ReputationChart}
          history=${m.history}
          label=${`Daily reputation of ${m.email} from ${m.startDate} to ${m.endDate}`}
        />
        <figcaption data-testid="chart-caption">
          Daily reputation, ${m.startDate} to ${m.endDate}: ${m.history.length} days,${' '}
          ${points.length ? `from ${Math.min(...points.map((p) => p.reputation!))} to ${Math.max(...points.map((p) => p.reputation!))}` : 'no data in this range'}.
        </figcaption>
      </figure>`
    }
  </section>`;
}
