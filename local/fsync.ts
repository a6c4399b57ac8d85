// LOCAL_FSYNC: what the local runtime's acknowledged writes survive. Every setting survives a crash of
// the runtime or of DynamoDB Local's JVM (each write is in the OS before the answer); they differ on a
// power loss or a crash of the machine (docs/local-runtime.md#what-a-crash-keeps).
//   full:   every queue message, object, event and table write is fsynced before the answer.
//   normal: the same for queue messages, objects and events; the table (SQLite in WAL mode) is fsynced
//           at its checkpoints, so a power loss may lose its last writes, never corrupt it. The default.
//   off:    nothing is fsynced (test machines).
export type LocalFsync = 'full' | 'normal' | 'off';

const aliases: Record<string, LocalFsync> = {
  full: 'full',
  true: 'full',
  normal: 'normal',
  off: 'off',
  false: 'off',
};

/** LOCAL_FSYNC, else `normal`; `true` and `false` mean `full` and `off`. */
export function localFsync(raw = process.env.LOCAL_FSYNC): LocalFsync {
  if (raw === undefined || raw === '') return 'normal';
  const setting = aliases[raw.trim().toLowerCase()];
  if (!setting) throw new Error(`LOCAL_FSYNC must be full, normal or off (true, false), got ${raw}`);
  return setting;
}

/** The option's two spellings: true and false are `full` and `off`. */
export function asLocalFsync(setting: LocalFsync | boolean): LocalFsync {
  if (setting === true) return 'full';
  if (setting === false) return 'off';
  return setting;
}

/** Whether the queue journal, objects and events are fdatasynced before the answer. */
export const fsyncsFiles = (setting: LocalFsync): boolean => setting !== 'off';
