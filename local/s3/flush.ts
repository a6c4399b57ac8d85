// Flushing what the local S3 wrote (LOCAL_FSYNC), without blocking the event loop: a directory's fsync
// takes 1-20 ms on a loaded disk, and the S3, SQS and API emulators all answer from this thread.
import { open } from 'node:fs/promises';

/** Flushes a file (fsync): its bytes and its size. */
export async function syncFile(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

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
