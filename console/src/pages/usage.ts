// Usage: a month's validations against the monthly quota and the prepaid credits, and above all what
// is left. Other months by the month picker (their quota left is 0: only credits carry over).
import { useState } from 'preact/hooks';
import type { Api, Usage } from '../api';
import { html } from '../html';
import { ErrorMessage, formatNumber, Loading, PageTitle, useLoad } from '../ui';

const thisMonth = () => new Date().toISOString().slice(0, 7);
const monthName = (month: string) =>
  new Date(`${month}-01T00:00:00Z`).toLocaleString('en', { month: 'long', year: 'numeric', timeZone: 'UTC' });
const plural = (n: number, one: string, many = `${one}s`) => `${formatNumber(n)} ${n === 1 ? one : many}`;

export function UsagePage({ api }: { api: Api }) {
  const [month, setMonth] = useState(thisMonth);
  const usage = useLoad(() => api.getUsage(month), [month]);
  const current = month === thisMonth();

  return html`<section>
    <${PageTitle}>Usage<//>
    <div class="field inline">
      <label for="usage-month">Month</label>
      <input
        id="usage-month"
        type="month"
        placeholder="YYYY-MM"
        value=${month}
        max=${thisMonth()}
        onChange=${(e: Event) => {
          const value = (e.target as HTMLInputElement).value;
          if (/^\d{4}-\d{2}$/.test(value)) setMonth(value);
        }}
      />
      ${
        !current &&
        html`<button type="button" class="secondary" onClick=${() => setMonth(thisMonth())}>
          This month
        </button>`
      }
    </div>
    <${ErrorMessage} error=${usage.error} />
    ${usage.loading && !usage.data && html`<${Loading} what="usage" />`}
    ${usage.data && html`<${UsageView} usage=${usage.data} current=${current} />`}
  </section>`;
}

function UsageView({ usage, current }: { usage: Usage; current: boolean }) {
  const { quota, creditsRemaining, remaining, used } = usage;
  // remaining = quota left + credits left (running jobs' reservations already taken off).
  const quotaLeft = Math.max(0, remaining - creditsRemaining);
  const withinQuota = Math.min(used.total, quota);
  const share = quota > 0 ? Math.round((withinQuota / quota) * 100) : 100;
  const end = new Date(Date.parse(usage.periodEnd) - 1).toISOString().slice(0, 10);

  let verdict: string;
  if (remaining === 0)
    verdict = current
      ? 'Nothing is left this month: validations are refused (402) until the next month or until credits are added.'
      : 'Nothing was left at the end of this month.';
  else if (current)
    verdict =
      `You can validate ${plural(remaining, 'more address', 'more addresses')} this month: ` +
      (quotaLeft > 0
        ? `${formatNumber(quotaLeft)} left of the monthly quota${creditsRemaining > 0 ? `, then ${plural(creditsRemaining, 'credit')}` : ''}.`
        : `the quota is spent, so they use your ${plural(creditsRemaining, 'credit')}.`);
  else
    verdict = `${plural(creditsRemaining, 'credit')} left today; a past month's unused quota does not carry over.`;

  return html`<div class="usage" data-testid="usage">
    <p class="muted">${monthName(usage.month)} (UTC): ${usage.periodStart.slice(0, 10)} to ${end}</p>
    <p class=${remaining === 0 ? 'error' : 'ok'} role="status" data-testid="usage-verdict">${verdict}</p>
    <dl class="figures">
      <div>
        <dt>Left ${current ? 'this month' : 'now'}</dt>
        <dd data-testid="remaining">${formatNumber(remaining)}</dd>
      </div>
      <div>
        <dt>Quota left</dt>
        <dd data-testid="quota-left">
          ${formatNumber(quotaLeft)} <span class="muted">of ${formatNumber(quota)}</span>
        </dd>
      </div>
      <div>
        <dt>Credits left</dt>
        <dd data-testid="credits">${formatNumber(creditsRemaining)}</dd>
      </div>
      <div>
        <dt>Used</dt>
        <dd data-testid="used">${formatNumber(used.total)}</dd>
      </div>
    </dl>
    <div class="progress-block">
      <label for="quota-meter"
        >Monthly quota used: ${formatNumber(withinQuota)} of ${formatNumber(quota)} (${share}%)</label
      >
      <meter
        id="quota-meter"
        min="0"
        max=${Math.max(quota, 1)}
        value=${withinQuota}
        high=${quota * 0.9}
        optimum="0"
      >
        ${share}%
      </meter>
    </div>
    <table class="stats-table">
      <caption>
        Validations counted in ${monthName(usage.month)}
      </caption>
      <thead>
        <tr>
          <th scope="col">Source</th>
          <th scope="col" class="num">Validations</th>
        </tr>
      </thead>
      <tbody>
        <tr>
          <th scope="row">Single addresses (API and this console)</th>
          <td class="num">${formatNumber(used.single)}</td>
        </tr>
        <tr>
          <th scope="row">Bulk files</th>
          <td class="num">${formatNumber(used.bulk)}</td>
        </tr>
        <tr>
          <th scope="row">Total</th>
          <td class="num">${formatNumber(used.total)}</td>
        </tr>
        ${
          used.total > quota &&
          html`<tr>
            <th scope="row">Beyond the quota, paid with credits</th>
            <td class="num">${formatNumber(used.total - quota)}</td>
          </tr>`
        }
      </tbody>
    </table>
    <p class="muted">
      Every validated address counts once; a bulk job counts when it completes, a failed one counts nothing.
      Workspace pages never count.
    </p>
  </div>`;
}
