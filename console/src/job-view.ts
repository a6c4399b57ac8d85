// One bulk job as the bulk page and the jobs page show it: live progress while it runs, a failed or
// expired job's reason, and when it completed its statistics and downloads (the full file, or only the
// rows of chosen statuses, with or without the reason column).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api, Job, Status } from './api';
import { StatisticsChart } from './charts';
import { html } from './html';
import { ErrorMessage, formatNumber } from './ui';
import { jobProgressWords, jobStateWords, statuses, statusWords } from './words';

/** The wait before the next read of a running job: 100 ms after the first, doubling to 1 s. */
const pollMs = (reads: number) => Math.min(100 * 2 ** reads, 1000);

export const isFinished = (status: Job['status']) =>
  status === 'completed' || status === 'failed' || status === 'expired';

export function JobView({
  api,
  initial,
  fileName,
  onAgain,
  titleLevel = 2,
}: {
  api: Api;
  initial: Job;
  fileName?: string;
  /** Offers "Validate another file" once the job has ended. */
  onAgain?: () => void;
  /** 2 under a page title; 0 leaves the name out (the page's own title says it). */
  titleLevel?: 0 | 2;
}) {
  const [job, setJob] = useState(initial);
  const [error, setError] = useState<unknown>();
  const finished = isFinished(job.status);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  // an estimate or a small file ends within a second: seen soon after it does, not a second later
  const reads = useRef(0);

  useEffect(() => {
    if (finished) return;
    timer.current = setTimeout(() => {
      api.getJob(job.jobId).then(
        (next) => (setError(undefined), setJob(next)),
        (e: unknown) => (setError(e), setJob({ ...job })),
      );
    }, pollMs(reads.current++));
    return () => clearTimeout(timer.current);
  }, [job]);

  return html`<div class="job" data-status=${job.status}>
    ${titleLevel === 2 && html`<h2>${fileName ?? 'Your file'}</h2>`}
    <p role="status">
      <span data-testid="job-state"
        >${job.estimate !== undefined ? 'Estimate: ' : ''}${jobStateWords[job.status] ?? job.status}</span
      >
      ${jobProgressWords(job) && html` · ${jobProgressWords(job)}`}
    </p>
    ${
      !finished &&
      html`<div class="progress-block">
        <label for="job-progress">Progress</label>
        <progress id="job-progress" max="100" value=${job.percentComplete}>${job.percentComplete}%</progress>
        <span aria-hidden="true">${job.percentComplete}%</span>
      </div>`
    }
    ${
      job.status === 'processing' &&
      job.expectedFinishAt &&
      html`<p class="muted" data-testid="expected-finish">
        Mailbox checks are pacing themselves for a busy mail server; expected to finish by
        ${new Date(job.expectedFinishAt).toLocaleTimeString()}.
      </p>`
    }
    ${
      job.status === 'failed' &&
      html`<p class="error" role="alert">The job failed: ${job.error ?? 'no reason was given.'}</p>`
    }
    ${
      job.status === 'expired' &&
      html`<p class="error" role="alert">The file never arrived within the upload window. Start again.</p>`
    }
    ${
      job.status === 'completed' && job.estimate
        ? html`<${EstimateResult} api=${api} job=${job} estimate=${job.estimate} fileName=${fileName} />`
        : job.status === 'completed' && job.statistics && html`<${Statistics} job=${job} />`
    }
    <${ErrorMessage} error=${error} />
    ${job.status === 'completed' && !job.estimate && html`<${Downloads} api=${api} job=${job} />`}
    ${
      finished &&
      onAgain &&
      html`<div class="actions">
        <button type="button" class="secondary" onClick=${onAgain}>Validate another file</button>
      </div>`
    }
  </div>`;
}

/**
 * The full results, and a filtered copy: only the rows of the chosen statuses (header and empty lines
 * kept), with or without the reason column. The presigned address answers with Content-Disposition:
 * attachment, so the page stays where it is.
 */
function Downloads({ api, job }: { api: Api; job: Job }) {
  const [chosen, setChosen] = useState<Status[]>([]);
  const [reason, setReason] = useState(false);
  const [unique, setUnique] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const download = async (filter: {
    status?: Status[];
    columns?: ('status' | 'reason')[];
    unique?: boolean;
  }) => {
    setBusy(true);
    setError(undefined);
    try {
      const { downloadUrl } = await api.getDownload(job.jobId, filter);
      window.location.assign(downloadUrl);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const flip = (status: Status, on: boolean) =>
    setChosen((c) => statuses.filter((s) => (s === status ? on : c.includes(s))));
  const nothingChosen = chosen.length === 0 && !reason && !unique;

  return html`<div class="downloads">
    <div class="actions">
      <button type="button" onClick=${() => download({})} disabled=${busy}>Download results (CSV)</button>
    </div>
    <form
      class="card filter"
      aria-labelledby=${`filter-${job.jobId}`}
      onSubmit=${(e: Event) => {
        e.preventDefault();
        void download({
          ...(chosen.length ? { status: chosen } : {}),
          ...(reason ? { columns: ['status', 'reason'] } : {}),
          ...(unique ? { unique: true } : {}),
        });
      }}
    >
      <h3 id=${`filter-${job.jobId}`}>A filtered download</h3>
      <fieldset>
        <legend>Keep only the rows that are</legend>
        ${statuses.map(
          (s) =>
            html`<label class="check">
              <input
                type="checkbox"
                name="status"
                value=${s}
                checked=${chosen.includes(s)}
                onChange=${(e: Event) => flip(s, (e.target as HTMLInputElement).checked)}
              />
              <span class="dot" style=${`background:${statusWords[s].color}`}></span>${statusWords[s].label}
              ${job.statistics && html` <span class="muted">(${formatNumber(job.statistics[s])})</span>`}
            </label>`,
        )}
        <p class="muted">None ticked: every row. The header row and empty lines are always kept.</p>
      </fieldset>
      <label class="check">
        <input
          type="checkbox"
          checked=${reason}
          onChange=${(e: Event) => setReason((e.target as HTMLInputElement).checked)}
        />
        <span>Add the reason column (<code>mailvet_reason</code>, after <code>mailvet_status</code>)</span>
      </label>
      ${
        job.duplicateEmails > 0 &&
        html`<label class="check">
          <input
            type="checkbox"
            name="unique"
            checked=${unique}
            onChange=${(e: Event) => setUnique((e.target as HTMLInputElement).checked)}
          />
          <span
            >Leave out duplicate rows (${formatNumber(job.duplicateEmails)}): keep each address's first row
            only</span
          >
        </label>`
      }
      <button type="submit" class="secondary" disabled=${busy || nothingChosen}>
        Download filtered results (CSV)
      </button>
    </form>
    <${ErrorMessage} error=${error} />
  </div>`;
}

type Estimate = NonNullable<Job['estimate']>;

/**
 * A completed estimate: the statistics projected to the whole file, the validations the full run will
 * use, and the button that starts it (then the run, followed like any job).
 */
function EstimateResult({
  api,
  job,
  estimate,
  fileName,
}: {
  api: Api;
  job: Job;
  estimate: Estimate;
  fileName?: string;
}) {
  const [run, setRun] = useState<Job>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const start = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const created = await api.runEstimate(job.jobId);
      setRun({
        jobId: created.jobId,
        status: 'processing',
        totalEmails: 0,
        processedEmails: 0,
        duplicateEmails: 0,
        percentComplete: 0,
        createdAt: new Date().toISOString(),
        completedAt: null,
        statistics: null,
        unprobedEmails: 0,
      });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const sampled =
    estimate.sampled === estimate.rows
      ? `All ${formatNumber(estimate.rows)} rows were validated`
      : `A random sample of ${formatNumber(estimate.sampled)} of the ${formatNumber(estimate.rows)} rows was validated`;
  const cost = ` validations (this estimate used ${formatNumber(estimate.sampled)}).`;
  return html`<div class="estimate" data-testid="estimate">
    <${Statistics}
      job=${{ ...job, statistics: estimate.statistics, totalEmails: estimate.rows, unprobedEmails: 0 }}
      caption=${`${sampled}; the statistics below are projected to the whole file.`}
    />
    <p data-testid="estimate-cost">
      Validating the whole file will use <strong>${formatNumber(estimate.rows)}</strong>${cost}
    </p>
    ${
      run
        ? html`<h3>The full run</h3>
            <${JobView} api=${api} initial=${run} fileName=${fileName} titleLevel=${0} />`
        : job.runJobId
          ? html`<p class="muted">This estimate was run in full as job <code>${job.runJobId}</code>.</p>`
          : html`<div class="actions">
              <button type="button" onClick=${start} disabled=${busy}>
                Validate all ${formatNumber(estimate.rows)} rows
              </button>
            </div>`
    }
    <${ErrorMessage} error=${error} />
  </div>`;
}

function Statistics({ job, caption }: { job: Job; caption?: string }) {
  const stats = job.statistics!;
  const total = job.totalEmails || 1;
  const summary = statuses.map((s) => `${statusWords[s].label} ${stats[s]}`).join(', ');
  return html`<div class="statistics">
    <p>${caption ?? `${formatNumber(job.totalEmails)} emails validated.`}</p>
    ${
      job.duplicateEmails > 0 &&
      html`<p class="muted" data-testid="duplicates">
        ${
          job.duplicateEmails === 1
            ? "1 of them repeats an address from an earlier row: it has that row's status and is not counted in your usage."
            : `${formatNumber(job.duplicateEmails)} of them repeat an address from an earlier row: they have that row's status and are not counted in your usage.`
        }
      </p>`
    }
    ${
      job.unprobedEmails > 0 &&
      html`<p class="muted" data-testid="unprobed">
        ${formatNumber(job.unprobedEmails)} addresses could not get a mailbox check before the time limit:
        their status comes from their domain alone.
      </p>`
    }
    <${StatisticsChart} statistics=${stats} label=${`Results by status: ${summary}`} />
    <table class="stats-table">
      <caption class="visually-hidden">
        Results by status
      </caption>
      <thead>
        <tr>
          <th scope="col">Status</th>
          <th scope="col">Emails</th>
          <th scope="col">Share</th>
        </tr>
      </thead>
      <tbody>
        ${statuses.map(
          (s) =>
            html`<tr data-status=${s}>
              <th scope="row">
                <span class="dot" style=${`background:${statusWords[s].color}`}></span>${statusWords[s].label}
              </th>
              <td>${formatNumber(stats[s])}</td>
              <td>${Math.round((stats[s] / total) * 100)}%</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
