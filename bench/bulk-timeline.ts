// The bulk pipeline's timeline for bench/bulk.ts: when each phase of one job ran (from the bench's own
// marks and the AWS calls the runtime recorded, each with its function and time) and the CPU the process
// spent meanwhile (sampled from /proc/self/task, main thread and the rest apart). Phases overlap: the
// CPU of a window is the whole process's in it, not the phase's alone.
import { readFileSync } from 'node:fs';
import { threadCpu } from './thread-cpu';
import type { AwsCall } from '../functions/clients/call-recording';

/** CPU seconds so far of each thread of this process, by task id (Linux; else empty). */
function cpuByTask(): Map<string, number> {
  return new Map([...threadCpu()].map(([task, { seconds }]) => [task, seconds]));
}

/** A thread's name and id ('node' for a worker thread, 'V8 DefaultWorke' for V8's GC and compiler helpers). */
function threadName(task: string): string {
  try {
    return `${readFileSync(`/proc/self/task/${task}/comm`, 'utf8').trim()} ${task}`;
  } catch {
    return `thread ${task}`;
  }
}

interface Sample {
  at: number;
  main: number;
  other: number;
  /** CPU seconds so far by task id. */
  tasks: Map<string, number>;
}

/** Samples the process's CPU every `everyMs` on this thread's clock (performance.now, as the calls'). */
export class CpuSampler {
  private readonly samples: Sample[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(readonly everyMs = 100) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  private sample(): void {
    const tasks = cpuByTask();
    let main = 0;
    let other = 0;
    for (const [task, seconds] of tasks) {
      if (task === String(process.pid)) main += seconds;
      else other += seconds;
    }
    this.samples.push({ at: performance.now(), main, other, tasks });
  }

  /**
   * Each busy thread's CPU per sampling interval from `from` to `to`, one character an interval: '.'
   * idle, 1-9 tenths of a core, '#' a whole core (the main thread first, then the others by CPU used).
   * Idle gaps of the worker threads show here; the CPU of the window alone does not say which thread.
   */
  strips(from: number, to: number, minSeconds = 0.1): { label: string; seconds: number; strip: string }[] {
    const inWindow = this.samples.filter((s) => s.at >= from && s.at <= to);
    if (inWindow.length < 2) return [];
    const first = inWindow[0]!;
    const last = inWindow[inWindow.length - 1]!;
    const tasks = [...last.tasks.keys()]
      .map((task) => ({ task, seconds: last.tasks.get(task)! - (first.tasks.get(task) ?? 0) }))
      .filter((t) => t.seconds >= minSeconds)
      .sort(
        (a, b) =>
          Number(b.task === String(process.pid)) - Number(a.task === String(process.pid)) ||
          b.seconds - a.seconds,
      );
    return tasks.map(({ task, seconds }) => {
      let strip = '';
      for (let i = 1; i < inWindow.length; i++) {
        const a = inWindow[i - 1]!;
        const b = inWindow[i]!;
        const share = ((b.tasks.get(task) ?? 0) - (a.tasks.get(task) ?? 0)) / ((b.at - a.at) / 1000);
        const tenths = Math.round(share * 10);
        strip += tenths <= 0 ? '.' : tenths >= 10 ? '#' : String(tenths);
      }
      return { label: task === String(process.pid) ? 'main' : threadName(task), seconds, strip };
    });
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  /** CPU seconds (main, other) between two instants, interpolated between samples. */
  between(from: number, to: number): { main: number; other: number } {
    const a = this.at(from);
    const b = this.at(to);
    return { main: b.main - a.main, other: b.other - a.other };
  }

  private at(time: number): { main: number; other: number } {
    const s = this.samples;
    if (s.length === 0) return { main: 0, other: 0 };
    if (time <= s[0]!.at) return s[0]!;
    for (let i = 1; i < s.length; i++) {
      const b = s[i]!;
      if (time > b.at) continue;
      const a = s[i - 1]!;
      const f = b.at === a.at ? 1 : (time - a.at) / (b.at - a.at);
      return { main: a.main + f * (b.main - a.main), other: a.other + f * (b.other - a.other) };
    }
    return s[s.length - 1]!;
  }
}

/** The bench's own instants (performance.now). */
export interface BenchMarks {
  uploadStart: number;
  uploadEnd: number;
  /** The first poll that saw the job completed answered. */
  completedSeen: number;
  downloadEnd: number;
  pollIntervalMs: number;
}

interface Phase {
  name: string;
  from: number;
  to: number;
  note?: string;
}

const end = (call: AwsCall) => call.at + call.ms;

/** Prints the job's phases, one line each: start and end from the upload's start, wall, CPU. */
export function printTimeline(marks: BenchMarks, calls: AwsCall[], cpu: CpuSampler): void {
  const of = (name: string) => calls.filter((call) => call.function === name).sort((a, b) => a.at - b.at);
  const start = of('startProcessing');
  const chunks = of('validateChunk');
  const scanRead = start.find((c) => c.operation === 'GetObject');
  const sends = start.filter((c) => c.operation === 'SendMessageBatch');
  const assemblyStart = chunks.find(
    (c) => c.operation === 'CreateMultipartUpload' && c.target.key?.startsWith('results/'),
  );
  if (start.length === 0 || chunks.length === 0 || !scanRead || !assemblyStart) {
    console.log('timeline: the recorded calls do not show a whole job (no scan, chunk or assembly)');
    return;
  }
  const assembler = chunks.filter((c) => c.invocation === assemblyStart.invocation);
  const joins = assembler.filter(
    (c) => c.operation === 'CompleteMultipartUpload' && c.target.key?.startsWith('results/'),
  );
  const joined = Math.max(...joins.map(end));
  // the job item's move to completed: the first write after the joins (slot and usage follow it)
  const marked = assembler.find((c) => c.at >= joined && c.service === 'dynamodb');
  const completedAt = marked ? end(marked) : Math.max(...assembler.map(end));
  // chunk invocations: each one's span, from its first call to the end of its last
  const spans = new Map<number, { from: number; to: number }>();
  for (const call of chunks) {
    const span = spans.get(call.invocation ?? -1) ?? { from: call.at, to: end(call) };
    span.from = Math.min(span.from, call.at);
    span.to = Math.max(span.to, end(call));
    spans.set(call.invocation ?? -1, span);
  }
  const firstChunk = chunks[0]!.at;
  const busy = [...spans.values()].reduce((sum, s) => sum + Math.min(s.to, assemblyStart.at) - s.from, 0);
  const phases: Phase[] = [
    { name: 'upload (PUT 100 MB to the local S3)', from: marks.uploadStart, to: marks.uploadEnd },
    { name: 'S3 event -> startProcessing', from: marks.uploadEnd, to: start[0]!.at },
    {
      name: 'startProcessing -> scan reads',
      from: start[0]!.at,
      to: scanRead.at,
      note: 'job read, slot, processing',
    },
    {
      name: 'scan (GET upload .. scan recorded)',
      from: scanRead.at,
      to: Math.max(...start.map(end)),
      note: `${sends.length} SendMessageBatch, first after ${ms(sends[0] ? sends[0].at - scanRead.at : NaN)}`,
    },
    {
      name: 'chunks (first chunk call .. assembly)',
      from: firstChunk,
      to: assemblyStart.at,
      note: `${spans.size} invocations, ${(busy / (assemblyStart.at - firstChunk)).toFixed(1)} at once on average, first ${ms(firstChunk - scanRead.at)} after the scan began`,
    },
    {
      name: 'assembly (results multipart)',
      from: assemblyStart.at,
      to: joined,
      note: `${assembler.filter((c) => c.operation === 'UploadPart').length} UploadPart, ${assembler.filter((c) => c.operation === 'GetObject').length} GetObject`,
    },
    { name: 'completion (job item marked)', from: joined, to: completedAt },
    {
      name: 'completed -> a poll sees it',
      from: completedAt,
      to: marks.completedSeen,
      note: `polling every ${marks.pollIntervalMs} ms`,
    },
    { name: 'download (descriptor + 110 MB GET)', from: marks.completedSeen, to: marks.downloadEnd },
  ];
  // TIMELINE_CHUNKS=1: each chunk invocation's span, by worker (its invocation numbers' base)
  if (process.env.TIMELINE_CHUNKS)
    for (const [invocation, span] of [...spans].sort((a, b) => a[1].from - b[1].from))
      console.log(
        `    worker ${Math.floor(invocation / 1e9)} invocation ${invocation % 1e9}: ${((span.from - marks.uploadStart) / 1000).toFixed(2)} .. ${((span.to - marks.uploadStart) / 1000).toFixed(2)} s`,
      );
  // TIMELINE_CHUNKS=2: also the calls of the first chunk invocations, one a line
  if (Number(process.env.TIMELINE_CHUNKS) > 1)
    for (const [invocation] of [...spans].sort((a, b) => a[1].from - b[1].from).slice(0, 4)) {
      console.log(`    invocation ${invocation}:`);
      for (const c of chunks.filter((call) => call.invocation === invocation))
        console.log(
          `      ${((c.at - marks.uploadStart) / 1000).toFixed(3)} s +${c.ms.toFixed(0)} ms ${c.operation} ${c.target.key ?? ''}`,
        );
    }
  // TIMELINE_CALLS=1: the assembling invocation's calls, one a line
  if (process.env.TIMELINE_CALLS)
    for (const c of assembler.filter((call) => call.at >= assemblyStart.at))
      console.log(
        `    ${((c.at - marks.uploadStart) / 1000).toFixed(3)} s +${c.ms.toFixed(0)} ms ${c.operation} ${c.target.key ?? ''}`,
      );
  console.log(
    'timeline (s from the upload start; CPU s of this process in the window: main / other threads):',
  );
  for (const phase of phases) {
    const used = cpu.between(phase.from, phase.to);
    const at = (t: number) => ((t - marks.uploadStart) / 1000).toFixed(2).padStart(6);
    console.log(
      `  ${phase.name.padEnd(40)} ${at(phase.from)} .. ${at(phase.to)}  ${((phase.to - phase.from) / 1000).toFixed(2).padStart(5)} s` +
        `  CPU ${used.main.toFixed(2)} / ${used.other.toFixed(2)}${phase.note ? `  (${phase.note})` : ''}`,
    );
  }
  const strips = cpu.strips(marks.uploadStart, marks.downloadEnd);
  if (strips.length === 0) return;
  console.log(
    `CPU by thread, one character per ${cpu.everyMs} ms from the upload start ('.' idle, 1-9 tenths of a core, '#' all of one):`,
  );
  // the phases' starts on the same scale: u upload, s scan, c first chunk, a assembly, d download
  const scale = (t: number) => Math.max(0, Math.round((t - marks.uploadStart) / cpu.everyMs));
  const ruler: string[] = [];
  const put = (t: number, mark: string) => (ruler[scale(t)] = mark);
  put(scanRead.at, 's');
  put(firstChunk, 'c');
  put(assemblyStart.at, 'a');
  put(marks.completedSeen, 'd');
  console.log(`  ${'phases'.padEnd(30)} ${Array.from(ruler, (m) => m ?? ' ').join('')}`);
  for (const { label, seconds, strip } of strips)
    console.log(`  ${`${label} ${seconds.toFixed(2)} s`.padEnd(30)} ${strip}`);
}

function ms(value: number): string {
  return Number.isNaN(value) ? '-' : `${Math.round(value)} ms`;
}
