/**
 * Resource limits of one `bash` call, set as rlimits on the command's first process and so
 * inherited by all it starts. Each is per process except `processes`, which counts the sandbox
 * user's processes (per call in bubblewrap, which gives each call a user namespace of its own).
 */
export interface ResourceLimits {
  /** Processes and threads (RLIMIT_NPROC). Default 1024: a fork bomb stops there, `npm install` is far below. */
  processes?: number;
  /**
   * Memory one process may allocate (RLIMIT_DATA: heap and private mappings), in bytes. Default
   * 2 GiB. Not the address space: Node and other V8 programs reserve large ranges they never use.
   */
  memoryBytes?: number;
  /** CPU seconds one process may use (RLIMIT_CPU); then it gets SIGXCPU, then SIGKILL. Default 600. */
  cpuSeconds?: number;
  /** Largest file a process may write (RLIMIT_FSIZE), in bytes; past it the write fails with SIGXFSZ. Default 1 GiB. */
  fileBytes?: number;
}

export const DEFAULT_LIMITS: Required<ResourceLimits> = Object.freeze({
  processes: 1024,
  memoryBytes: 2 * 1024 ** 3,
  cpuSeconds: 600,
  fileBytes: 1024 ** 3,
});

/** JSON Schema of `limits` (what `ResourceLimits` accepts from a config file). */
export const LIMITS_CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    processes: {
      type: 'integer',
      minimum: 16,
      description: 'Processes and threads of one call (default 1024).',
    },
    memoryBytes: {
      type: 'integer',
      minimum: 64 * 1024 ** 2,
      description: 'Bytes of memory one process may allocate (default 2 GiB).',
    },
    cpuSeconds: {
      type: 'integer',
      minimum: 1,
      description: 'CPU seconds one process may use (default 600).',
    },
    fileBytes: {
      type: 'integer',
      minimum: 1024,
      description: 'Largest file one process may write, in bytes (default 1 GiB).',
    },
  },
  additionalProperties: false,
} as const;

/**
 * The bash line that sets the limits, soft and hard (a command cannot raise them back). Each
 * `ulimit` that fails (a hard limit already lower) leaves that stricter limit in place.
 */
export function ulimitLine(limits: ResourceLimits = {}): string {
  const set = { ...DEFAULT_LIMITS, ...limits };
  const kib = (bytes: number) => Math.max(1, Math.floor(bytes / 1024));
  return [
    `ulimit -u ${set.processes}`,
    // bash counts -d and -f in KiB.
    `ulimit -d ${kib(set.memoryBytes)}`,
    `ulimit -t ${set.cpuSeconds}`,
    `ulimit -f ${kib(set.fileBytes)}`,
  ]
    .map((line) => `${line} 2>/dev/null`)
    .join('; ');
}
