// Flushing what the local S3 wrote (LOCAL_FSYNC), without blocking the event loop: a directory's fsync
// takes 1-20 ms on a loaded disk, and the S3, SQS and API emulators all answer from this thread.
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';

/** Flushes a directory's entries (a rename or a link in it), as journal.ts's fsyncDirectory does. */
export async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Some filesystems refuse to fsync a directory; the rename is then as durable as they make it.
  } finally {
    await handle?.close();
  }
}

/**
 * Writes a small file aside (flushed with `fsync`) and renames it into place: a reader sees the old
 * bytes or the new, never half. Resolves with the new file's stat, taken before the rename (which keeps
 * it), so the caller knows the identity of the file it put there.
 */
export async function replaceFile(file: string, data: string | Buffer, fsync: boolean): Promise<Stats> {
  const temporary = `${file}.${randomBytes(6).toString('hex')}.partial`;
  try {
    const handle = await open(temporary, 'w');
    let stats: Stats;
    try {
      await handle.writeFile(data);
      if (fsync) await handle.sync();
      stats = await handle.stat();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
    return stats;
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
