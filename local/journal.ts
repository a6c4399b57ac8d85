// An append-only journal with a snapshot, for the local emulators' state: a change is on disk before the
// request that made it is answered (group commit: one write and one fdatasync for all the changes made
// while the previous write was under way), and the journal is folded into the snapshot when it grows.
//
// Records must be absolute ("message m is now X", "message m is gone"), never relative ("+1"), so that
// replaying records onto a snapshot that already contains them is harmless: compaction can then never lose
// or double a change, whatever moment a crash picks.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

export interface JournalOptions {
  /** Directory of `<name>.json` (snapshot) and `<name>.log` (journal). */
  dir: string;
  name: string;
  /**
   * true: fdatasync before a commit resolves, so acknowledged changes survive an OS crash or power loss.
   * false: written to the OS before the commit resolves, which survives a crash of this process only.
   */
  fsync: boolean;
  /** Fold the journal into the snapshot once it is this large (default 8 MiB). */
  compactBytes?: number;
}

export interface Recovered<State, Record> {
  snapshot: State | undefined;
  /** Records written after the snapshot, in order; a torn last line (a crash mid-write) is dropped. */
  records: Record[];
}

/** Flushes a directory entry (a rename or a new file) to disk. */
function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse to fsync a directory; the rename is then as durable as they make it.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Writes a file whole or not at all: temporary file, flushed, renamed over the target. */
export function writeFileAtomically(file: string, text: string, fsync: boolean): void {
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w');
  try {
    writeFileSync(fd, text);
    if (fsync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
  if (fsync) fsyncDirectory(path.dirname(file));
}

export class Journal<State, Record> {
  private handle: FileHandle | undefined;
  private pending: string[] = [];
  private appended = 0;
  private durable = 0;
  private logBytes = 0;
  private flushing: Promise<void> | undefined;
  private waiters: { upTo: number; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private readonly snapshotFile: string;
  private readonly logFile: string;

  private constructor(
    private readonly options: JournalOptions,
    private readonly snapshotOf: () => State,
  ) {
    this.snapshotFile = path.join(options.dir, `${options.name}.json`);
    this.logFile = path.join(options.dir, `${options.name}.log`);
  }

  /** What a previous process left: the snapshot and the journal records after it. */
  static recover<State, Record>(dir: string, name: string): Recovered<State, Record> {
    let snapshot: State | undefined;
    try {
      snapshot = JSON.parse(readFileSync(path.join(dir, `${name}.json`), 'utf8')) as State;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const records: Record[] = [];
    let text = '';
    try {
      text = readFileSync(path.join(dir, `${name}.log`), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const lines = text.split('\n');
    for (const [index, line] of lines.entries()) {
      if (line === '') continue;
      try {
        records.push(JSON.parse(line) as Record);
      } catch (error) {
        // Only the last line can be torn (nobody was told it was written); anything else is damage.
        if (index >= lines.length - 2) break;
        throw new Error(`${name}.log is damaged at line ${index + 1}`, { cause: error });
      }
    }
    return { snapshot, records };
  }

  /**
   * Opens the journal for appending after writing `snapshotOf()` as the new snapshot (so a start begins
   * with an empty journal). `snapshotOf` is called again at every compaction.
   */
  static async open<State, Record>(
    options: JournalOptions,
    snapshotOf: () => State,
  ): Promise<Journal<State, Record>> {
    const journal = new Journal<State, Record>(options, snapshotOf);
    writeFileAtomically(journal.snapshotFile, JSON.stringify(snapshotOf()), options.fsync);
    // Append mode: every write lands at the end, also after a compaction truncated the file.
    journal.handle = await open(journal.logFile, 'a');
    await journal.handle.truncate(0);
    if (options.fsync) fsyncDirectory(options.dir);
    return journal;
  }

  /** Queues a record; it is durable once a later commit() resolves. */
  append(record: Record): void {
    this.pending.push(JSON.stringify(record) + '\n');
    this.appended += 1;
  }

  /** Resolves once every record appended so far is written (and flushed, with fsync on). */
  commit(): Promise<void> {
    if (this.durable >= this.appended) return Promise.resolve();
    const upTo = this.appended;
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ upTo, resolve, reject }));
    this.flushing ??= this.flushLoop().finally(() => (this.flushing = undefined));
    return done;
  }

  private async flushLoop(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.join('');
      const upTo = this.appended;
      this.pending = [];
      try {
        if (!this.handle) throw new Error(`${this.options.name} journal is closed`);
        await this.handle.write(batch);
        if (this.options.fsync) await this.handle.datasync();
        this.logBytes += Buffer.byteLength(batch);
        this.durable = upTo;
      } catch (error) {
        // The records stay in memory only: their requests fail, so no one is told they are durable.
        this.durable = upTo;
        this.settle(upTo, error);
        continue;
      }
      this.settle(upTo);
      if (this.logBytes >= (this.options.compactBytes ?? 8 * 1024 * 1024)) {
        // A failed compaction loses nothing: the journal keeps growing and the next one tries again.
        await this.compact().catch((error: unknown) =>
          process.stderr.write(`${this.options.name}: could not compact the journal: ${String(error)}\n`),
        );
      }
    }
  }

  private settle(upTo: number, error?: unknown): void {
    const ready = this.waiters.filter((w) => w.upTo <= upTo);
    this.waiters = this.waiters.filter((w) => w.upTo > upTo);
    for (const waiter of ready) {
      if (error === undefined) waiter.resolve();
      else waiter.reject(error);
    }
  }

  /** The state now includes every record written: it becomes the snapshot and the journal starts empty. */
  private async compact(): Promise<void> {
    writeFileAtomically(this.snapshotFile, JSON.stringify(this.snapshotOf()), this.options.fsync);
    await this.handle!.truncate(0);
    this.logBytes = 0;
  }

  /** Writes what is pending, takes a last snapshot and closes the journal. */
  async close(): Promise<void> {
    await this.commit().catch(() => undefined);
    await this.flushing;
    if (!this.handle) return;
    writeFileAtomically(this.snapshotFile, JSON.stringify(this.snapshotOf()), this.options.fsync);
    await this.handle.truncate(0);
    await this.handle.close();
    this.handle = undefined;
  }
}
