// Bulk: drop a CSV, see its first rows as the service will read them, pick the email column by its
// header, upload straight to the presigned address with progress, follow the job, then the statistics
// and the download.
import { useState } from 'preact/hooks';
import { ApiError, type Api, type CreatedJob, type Job } from '../api';
import { delimiterNames, previewCsv, previewSampleBytes, type CsvPreview } from '../csv-preview';
import { html } from '../html';
import { JobView } from '../job-view';
import { ErrorMessage, PageTitle, valueTo } from '../ui';

const maxFileBytes = 100 * 1024 * 1024;

interface Picked {
  file: File;
  sample: Uint8Array;
  preview: CsvPreview;
}

type Phase =
  | { step: 'choose' }
  | { step: 'uploading'; job: CreatedJob; fraction: number }
  | { step: 'following'; job: Job };

export function BulkPage({ api }: { api: Api }) {
  const [picked, setPicked] = useState<Picked>();
  const [callbackUrl, setCallbackUrl] = useState('');
  const [estimateFirst, setEstimateFirst] = useState(false);
  const [phase, setPhase] = useState<Phase>({ step: 'choose' });
  const [error, setError] = useState<unknown>();

  const pick = async (file: File | undefined) => {
    setError(undefined);
    setPicked(undefined);
    if (!file) return;
    if (file.size > maxFileBytes)
      return setError(
        new Error('This file is over 100 MB, the most one job takes. Split it into smaller files.'),
      );
    if (file.size === 0) return setError(new Error('This file is empty.'));
    const sample = new Uint8Array(await file.slice(0, previewSampleBytes).arrayBuffer());
    setPicked({ file, sample, preview: previewCsv(sample, file.size <= previewSampleBytes) });
  };
  const chooseColumn = (column: number) =>
    picked &&
    setPicked({
      ...picked,
      preview: previewCsv(picked.sample, picked.file.size <= previewSampleBytes, column),
    });

  const start = async (event: Event) => {
    event.preventDefault();
    if (!picked) return;
    setError(undefined);
    let job: CreatedJob;
    try {
      const fileName = /\.csv$/i.test(picked.file.name) ? picked.file.name.slice(0, 255) : undefined;
      job = await api.createJob({
        emailColumn: picked.preview.emailColumn,
        ...(fileName ? { fileName } : {}),
        ...(callbackUrl.trim() ? { callbackUrl: callbackUrl.trim() } : {}),
        ...(estimateFirst ? { estimate: true } : {}),
      });
    } catch (e) {
      return setError(jobLimitMessage(e));
    }
    setPhase({ step: 'uploading', job, fraction: 0 });
    try {
      await api.uploadFile(job.uploadUrl, picked.file, (fraction) =>
        setPhase({ step: 'uploading', job, fraction }),
      );
    } catch (e) {
      setPhase({ step: 'choose' });
      return setError(
        e instanceof ApiError && e.status === 403
          ? new Error(
              `The upload address has expired (it lasts ${lifetime(job.uploadExpiresIn)} and the file had not ` +
                'arrived). Start the upload again: a new job gets a new address.',
            )
          : e,
      );
    }
    setPhase({
      step: 'following',
      job: {
        jobId: job.jobId,
        status: 'processing',
        totalEmails: 0,
        processedEmails: 0,
        percentComplete: 0,
        createdAt: new Date().toISOString(),
        completedAt: null,
        statistics: null,
        unprobedEmails: 0,
        duplicateEmails: 0,
      },
    });
  };
  const reset = () => {
    setPhase({ step: 'choose' });
    setPicked(undefined);
    setError(undefined);
  };

  return html`<section>
    <${PageTitle}>Bulk validation<//>
    ${
      phase.step === 'choose' &&
      html`<form onSubmit=${start}>
        <${DropZone} onFile=${pick} />
        ${picked && html`<${Preview} picked=${picked} onColumn=${chooseColumn} />`}
        ${
          picked &&
          html`<div class="field">
              <label for="callback-url">Callback URL <span class="muted">(optional)</span></label>
              <input
                id="callback-url"
                type="url"
                placeholder="https://example.com/hooks/mailvet"
                value=${callbackUrl}
                onInput=${valueTo(setCallbackUrl)}
                aria-describedby="callback-help"
              />
              <p id="callback-help" class="muted">We POST a signed message there when the job completes.</p>
            </div>
            <div class="field">
              <label class="check">
                <input
                  type="checkbox"
                  checked=${estimateFirst}
                  onChange=${(e: Event) => setEstimateFirst((e.target as HTMLInputElement).checked)}
                  aria-describedby="estimate-help"
                />
                <span>Estimate first</span>
              </label>
              <p id="estimate-help" class="muted">
                Validate a random sample of 1,000 rows and see the statistics projected to the whole file, and
                the validations it will use, before you run it all.
              </p>
            </div>
            <button type="submit">${estimateFirst ? 'Estimate' : 'Validate'} ${picked.file.name}</button>`
        }
      </form>`
    }
    <${ErrorMessage} error=${error} />
    ${
      phase.step === 'uploading' &&
      html`<div class="progress-block">
        <label for="upload-progress">Uploading ${picked?.file.name}</label>
        <progress id="upload-progress" max="100" value=${Math.round(phase.fraction * 100)}>
          ${Math.round(phase.fraction * 100)}%
        </progress>
        <span aria-hidden="true">${Math.round(phase.fraction * 100)}%</span>
      </div>`
    }
    ${
      phase.step === 'following' &&
      html`<${JobView} api=${api} initial=${phase.job} fileName=${picked?.file.name} onAgain=${reset} />`
    }
  </section>`;
}

const lifetime = (seconds: number) =>
  seconds % 60 === 0 ? `${seconds / 60} minute${seconds === 60 ? '' : 's'}` : `${seconds} seconds`;

/** The 5-job limit's 429 says how long to wait; other errors as the API words them. */
function jobLimitMessage(error: unknown): unknown {
  if (error instanceof ApiError && error.status === 429 && /job limit/i.test(error.message))
    return new Error(
      `You already have 5 jobs waiting or processing, the most a company may run at once. ` +
        `Wait for one to finish, then try again in ${error.retryAfter ?? 60} seconds.`,
    );
  return error;
}

function DropZone({ onFile }: { onFile: (file: File | undefined) => void }) {
  const [over, setOver] = useState(false);
  return html`<div
    class=${`drop ${over ? 'over' : ''}`}
    onDragOver=${(e: DragEvent) => {
      e.preventDefault();
      setOver(true);
    }}
    onDragLeave=${() => setOver(false)}
    onDrop=${(e: DragEvent) => {
      e.preventDefault();
      setOver(false);
      onFile(e.dataTransfer?.files[0]);
    }}
  >
    <label for="csv-file">Drop a CSV file here, or choose one</label>
    <input
      id="csv-file"
      type="file"
      accept=".csv,text/csv,text/plain"
      onChange=${(e: Event) => onFile((e.target as HTMLInputElement).files?.[0])}
    />
    <p class="muted">Up to 100 MB. Comma, semicolon, tab or pipe separated; a header row is optional.</p>
  </div>`;
}

function Preview({ picked, onColumn }: { picked: Picked; onColumn: (column: number) => void }) {
  const { preview } = picked;
  return html`<div class="preview">
    <h2>How mailvet will read ${picked.file.name}</h2>
    <p>
      <span>Encoding: <strong data-testid="encoding">${preview.encoding.toUpperCase()}</strong></span>
      ${' · '}
      <span>Delimiter: <strong data-testid="delimiter">${delimiterNames[preview.delimiter]}</strong></span>
      ${' · '}
      <span
        >Header row:${' '}<strong data-testid="header"
          >${
            preview.hasHeader
              ? 'yes (not validated)'
              : preview.headerPending
                ? 'decided when the whole file is read (the first row is a header if a later row holds an address)'
                : 'no'
          }</strong
        ></span
      >
    </p>
    <div class="field">
      <label for="email-column">Email column</label>
      <select
        id="email-column"
        value=${String(preview.emailColumn)}
        onChange=${(e: Event) => onColumn(Number((e.target as HTMLSelectElement).value))}
      >
        ${preview.columns.map((title, i) => html`<option value=${String(i)}>${title}</option>`)}
      </select>
    </div>
    <div class="table-scroll" tabindex="0" role="region" aria-label="First rows of the file">
      <table>
        <caption class="visually-hidden">
          First rows as mailvet reads them
        </caption>
        <thead>
          <tr>
            ${preview.columns.map(
              (title, i) =>
                html`<th scope="col" class=${i === preview.emailColumn ? 'email-col' : ''}>${title}</th>`,
            )}
          </tr>
        </thead>
        <tbody>
          ${preview.rows.map(
            (row) =>
              html`<tr>
                ${preview.columns.map(
                  (_, i) =>
                    html`<td class=${i === preview.emailColumn ? 'email-col' : ''}>${row[i] ?? ''}</td>`,
                )}
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </div>`;
}
