// Progress of a file job: bars (cli-progress) on a terminal, plain lines otherwise (logs, CI, pipes).
import cliProgress from 'cli-progress';
import type { FileProgress } from '../client/node';

export interface ProgressView {
  update(event: FileProgress): void;
  /** A message that must not tear a bar apart (retries). */
  note(text: string): void;
  stop(): void;
}

export function createProgressView(stream: NodeJS.WriteStream): ProgressView {
  return stream.isTTY ? barView(stream) : lineView(stream);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function percent(done: number, total: number): number {
  return total > 0 ? Math.floor((done / total) * 100) : 100;
}

function lineView(stream: NodeJS.WritableStream): ProgressView {
  let lastUpload = -1;
  let lastJob = '';
  const write = (text: string) => stream.write(`${text}\n`);
  return {
    update(event) {
      if (event.phase === 'upload') {
        // A line per 10% step, not per chunk.
        const step = Math.floor(percent(event.sentBytes, event.totalBytes) / 10);
        if (step === lastUpload) return;
        lastUpload = step;
        write(
          `upload: ${percent(event.sentBytes, event.totalBytes)}% (${formatBytes(event.sentBytes)} of ${formatBytes(event.totalBytes)})`,
        );
      } else if (event.phase === 'processing') {
        const { job } = event;
        const line =
          job.status === 'awaiting_upload'
            ? 'processing: waiting for the upload to be picked up'
            : `${job.status === 'processing' ? 'processing' : job.status}: ${job.percentComplete}% (${job.processedEmails} of ${job.totalEmails} emails)`;
        if (line === lastJob) return;
        lastJob = line;
        write(line);
      } else if (event.totalBytes === null || event.receivedBytes === event.totalBytes) {
        write(`download: ${formatBytes(event.receivedBytes)}`);
      }
    },
    note: write,
    stop: () => undefined,
  };
}

function barView(stream: NodeJS.WriteStream): ProgressView {
  const bars = new cliProgress.MultiBar(
    {
      stream,
      format: '{label} {bar} {percentage}% | {detail}',
      hideCursor: false,
      clearOnComplete: false,
      stopOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  let upload: cliProgress.SingleBar | undefined;
  let processing: cliProgress.SingleBar | undefined;
  return {
    update(event) {
      if (event.phase === 'upload') {
        upload ??= bars.create(event.totalBytes, 0, { label: 'upload    ', detail: '' });
        upload.update(event.sentBytes, {
          detail: `${formatBytes(event.sentBytes)} of ${formatBytes(event.totalBytes)}`,
        });
      } else if (event.phase === 'processing') {
        const { job } = event;
        processing ??= bars.create(100, 0, { label: 'processing', detail: '' });
        processing.update(job.percentComplete, {
          detail:
            job.status === 'awaiting_upload'
              ? 'waiting for the upload to be picked up'
              : `${job.processedEmails} of ${job.totalEmails} emails`,
        });
      }
    },
    note: (text) => bars.log(`${text}\n`),
    stop: () => bars.stop(),
  };
}
