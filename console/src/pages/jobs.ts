// The company's bulk jobs, newest first, with a state filter; one job's progress, statistics and
// downloads; deleting a job (and its files) after a confirmation.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api, JobState, JobSummary } from '../api';
import { html } from '../html';
import { isFinished, JobView } from '../job-view';
import { ListView, usePagedList, type Column } from '../list';
import { href } from '../route';
import { ErrorMessage, formatNumber, Loading, PageTitle, useLoad } from '../ui';
import { jobProgressWords, jobStateWords } from '../words';

const pageSize = 20;
/** How often a list with a running job is read again. */
const refreshMs = 3000;

const states: JobState[] = ['awaiting_upload', 'processing', 'completed', 'failed', 'expired'];

/** "2026-11-22 14:05" in the reader's time zone, with the full instant as a tooltip. */
function formatTime(iso: string | null | undefined) {
  if (!iso) return '—';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  const text = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return html`<time datetime=${iso} title=${iso}>${text}</time>`;
}

/** File names of the jobs listed so far: a job's own status body does not carry its name. */
const names = new Map<string, string | null>();

const jobName = (job: { fileName?: string | null; jobId: string }) =>
  job.fileName ?? `Job ${job.jobId.slice(0, 8)}`;

const columns: Column<JobSummary>[] = [
  {
    title: 'File',
    cell: (j) => html`<a href=${href('job', j.jobId)}>${jobName(j)}</a>`,
  },
  {
    title: 'State',
    cell: (j) => html`<span class=${`pill job-${j.status}`}>${jobStateWords[j.status] ?? j.status}</span>`,
  },
  {
    title: 'Progress',
    // Nothing to measure for a file that never arrived or failed before its rows were counted.
    cell: (j) =>
      j.status === 'awaiting_upload' ||
      j.status === 'expired' ||
      (j.status === 'failed' && j.totalEmails === 0)
        ? '—'
        : html`<span class="progress-cell">
            <progress
              max="100"
              value=${j.percentComplete}
              aria-label=${`Progress of ${jobName(j)}`}
            ></progress>
            ${j.percentComplete}% ·${' '}
            ${jobProgressWords(j) ?? `${formatNumber(j.processedEmails)} of ${formatNumber(j.totalEmails)}`}
          </span>`,
  },
  { title: 'Created', cell: (j) => formatTime(j.createdAt) },
  { title: 'Completed', cell: (j) => formatTime(j.completedAt) },
];

export function JobsPage({ api }: { api: Api }) {
  const [status, setStatus] = useState<JobState | ''>('');
  const list = usePagedList(
    (page) => api.listJobs({ ...page, ...(status ? { status } : {}) }),
    [status],
    pageSize,
  );
  // While a listed job waits for its file or runs, read the list again now and then.
  const active = list.data?.jobs.some((j) => !isFinished(j.status)) ?? false;
  useEffect(() => {
    if (!active || list.loading) return;
    const timer = setTimeout(list.reload, refreshMs);
    return () => clearTimeout(timer);
  }, [active, list.loading, list.data]);

  return html`<section>
    <${PageTitle}>Jobs<//>
    <div class="field inline">
      <label for="job-status">Show</label>
      <select
        id="job-status"
        value=${status}
        onChange=${(e: Event) => {
          setStatus((e.target as HTMLSelectElement).value as JobState | '');
          list.reset();
        }}
      >
        <option value="">All jobs</option>
        ${states.map((s) => html`<option value=${s}>${jobStateWords[s]}</option>`)}
      </select>
    </div>
    <${ListView}
      list=${list}
      rowsOf=${(data: { jobs: JobSummary[] }) => {
        for (const j of data.jobs) names.set(j.jobId, j.fileName);
        return data.jobs;
      }}
      what="jobs"
      label="Jobs"
      columns=${columns}
      testId="jobs"
      empty=${status ? 'No jobs in this state.' : 'No jobs yet. Validate a file on the Bulk page.'}
      rowAttributes=${(j: JobSummary) => ({ 'data-job': j.jobId, 'data-status': j.status })}
    />
  </section>`;
}

export function JobPage({ api, id }: { api: Api; id: string }) {
  const job = useLoad(() => api.getJob(id), [id]);
  // The name is in the list, not in the job's own status body: known when the list led here, else
  // looked up in the newest jobs (a bookmarked or reloaded job page).
  const named = useLoad(async () => {
    if (names.has(id)) return names.get(id) ?? null;
    const { jobs } = await api.listJobs({ limit: 1000 });
    return jobs.find((j) => j.jobId === id)?.fileName ?? null;
  }, [id]);
  const [deleted, setDeleted] = useState(false);
  const title = named.data ?? (job.data ? `Job ${id.slice(0, 8)}` : 'Job');

  return html`<section>
    <p><a href=${href('jobs')}>← All jobs</a></p>
    <${PageTitle}>${title}<//>
    ${
      deleted
        ? html`<p class="ok" role="status">The job and its files were deleted.</p>`
        : html`
            <p class="muted">
              Job <code>${id}</code>${job.data && html`, created ${formatTime(job.data.createdAt)}`}
            </p>
            <${ErrorMessage} error=${job.error} />
            ${job.loading && !job.data && html`<${Loading} what="the job" />`}
            ${job.data && html`<${JobView} api=${api} initial=${job.data} titleLevel=${0} />`}
            ${job.data && html`<${DeleteJob} api=${api} id=${id} name=${title} onDeleted=${() => setDeleted(true)} />`}
          `
    }
  </section>`;
}

/** "Delete job", then an inline confirmation that takes focus; Cancel or Escape returns it to the button. */
function DeleteJob({
  api,
  id,
  name,
  onDeleted,
}: {
  api: Api;
  id: string;
  name: string;
  onDeleted: () => void;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const cancelRef = useRef<HTMLButtonElement>(null);
  const openRef = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);
  useEffect(() => {
    if (asking) cancelRef.current?.focus();
    else if (returnFocus.current) openRef.current?.focus();
    returnFocus.current = false;
  }, [asking]);

  const cancel = () => {
    returnFocus.current = true;
    setAsking(false);
  };
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await api.deleteJob(id);
      onDeleted();
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };

  return html`<div class="danger-zone">
    ${
      asking
        ? html`<div
            role="alertdialog"
            aria-labelledby="delete-title"
            aria-describedby="delete-text"
            class="confirm"
            onKeyDown=${(e: KeyboardEvent) => e.key === 'Escape' && !busy && cancel()}
          >
            <h2 id="delete-title">Delete ${name}?</h2>
            <p id="delete-text">
              The job, the uploaded file and every results file are deleted for good; a running job is
              stopped.
            </p>
            <div class="actions">
              <button type="button" class="danger" onClick=${confirm} disabled=${busy}>
                ${busy ? 'Deleting…' : 'Delete for good'}
              </button>
              <button type="button" class="secondary" ref=${cancelRef} onClick=${cancel}>Cancel</button>
            </div>
          </div>`
        : html`<button
            type="button"
            class="secondary danger-text"
            ref=${openRef}
            onClick=${() => setAsking(true)}
          >
            Delete job
          </button>`
    }
    <${ErrorMessage} error=${error} />
  </div>`;
}
