import type { JSONSchemaObject } from '../../../core/index.ts';

/** Limits of the filesystem tools (config key `filesystem`). */
export interface FilesystemOptions {
  /** Most bytes of text one filesystem_read returns (default 256 KiB). */
  maxReadBytes?: number;
  /** Most entries one filesystem_list returns (default 1000). */
  maxListEntries?: number;
  /** Most matches one filesystem_search returns, and the cap on its `max_results` (default 100). */
  maxSearchResults?: number;
  /** Files larger than this are skipped by filesystem_search (default 2 MiB). */
  maxSearchFileBytes?: number;
  /** How long a regular expression may run on one file before the search fails (default 2 s). */
  searchRegexTimeoutMs?: number;
  /**
   * How many worker threads run filesystem_search regular expressions at once (default 2); further
   * searches wait their turn.
   */
  searchRegexWorkers?: number;
  /**
   * Let filesystem_read and filesystem_search read a file that has more than one hard link
   * (default false: refused, and skipped by search). A hard link in the workspace can be a file
   * from anywhere on the same filesystem. Writing such a file stays refused either way.
   */
  readHardLinkedFiles?: boolean;
}

export type FilesystemLimits = Required<FilesystemOptions>;

export const FILESYSTEM_DEFAULTS: FilesystemLimits = Object.freeze({
  maxReadBytes: 256 * 1024,
  maxListEntries: 1000,
  maxSearchResults: 100,
  maxSearchFileBytes: 2 * 1024 * 1024,
  searchRegexTimeoutMs: 2_000,
  // Two, not one: a search stuck on a catastrophic pattern (until its timeout) leaves the other free.
  searchRegexWorkers: 2,
  readHardLinkedFiles: false,
});

/** The JSON Schema of the `filesystem` config key. */
export const FILESYSTEM_CONFIG_SCHEMA: JSONSchemaObject = {
  type: 'object',
  description: 'Limits of the built-in filesystem tools.',
  properties: {
    maxReadBytes: {
      type: 'integer',
      minimum: 1,
      default: FILESYSTEM_DEFAULTS.maxReadBytes,
      description: 'Most bytes of text one filesystem_read returns.',
    },
    maxListEntries: {
      type: 'integer',
      minimum: 1,
      default: FILESYSTEM_DEFAULTS.maxListEntries,
      description: 'Most entries one filesystem_list returns.',
    },
    maxSearchResults: {
      type: 'integer',
      minimum: 1,
      default: FILESYSTEM_DEFAULTS.maxSearchResults,
      description: 'Most matches one filesystem_search returns.',
    },
    maxSearchFileBytes: {
      type: 'integer',
      minimum: 1,
      default: FILESYSTEM_DEFAULTS.maxSearchFileBytes,
      description: 'Files larger than this are skipped by filesystem_search.',
    },
    searchRegexTimeoutMs: {
      type: 'integer',
      minimum: 1,
      default: FILESYSTEM_DEFAULTS.searchRegexTimeoutMs,
      description:
        'How long a filesystem_search regular expression may run on one file (it runs off the event loop) before the search fails.',
    },
    searchRegexWorkers: {
      type: 'integer',
      minimum: 1,
      default: FILESYSTEM_DEFAULTS.searchRegexWorkers,
      description:
        'How many worker threads run filesystem_search regular expressions at once; further searches wait their turn.',
    },
    readHardLinkedFiles: {
      type: 'boolean',
      default: FILESYSTEM_DEFAULTS.readHardLinkedFiles,
      description:
        'Let filesystem_read and filesystem_search read files with more than one hard link (a hard link in the workspace can be a file from outside it). Writing one stays refused.',
    },
  },
  additionalProperties: false,
};

type IntegerKey = {
  [K in keyof FilesystemLimits]: FilesystemLimits[K] extends number ? K : never;
}[keyof FilesystemLimits];

const INTEGER_KEYS = Object.keys(FILESYSTEM_DEFAULTS).filter(
  (key) => typeof FILESYSTEM_DEFAULTS[key as keyof FilesystemLimits] === 'number',
) as IntegerKey[];

/** Options with defaults filled in; a limit that is not a positive integer (or a flag that is not a boolean) is a programming error. */
export function resolveLimits(options: FilesystemOptions = {}): FilesystemLimits {
  const limits = { ...FILESYSTEM_DEFAULTS };
  for (const key of INTEGER_KEYS) {
    const value = options[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) {
      throw new TypeError(`filesystem option ${key} must be a positive integer, got ${String(value)}`);
    }
    limits[key] = value;
  }
  const { readHardLinkedFiles } = options;
  if (readHardLinkedFiles !== undefined) {
    if (typeof readHardLinkedFiles !== 'boolean') {
      throw new TypeError(
        `filesystem option readHardLinkedFiles must be true or false, got ${String(readHardLinkedFiles)}`,
      );
    }
    limits.readHardLinkedFiles = readHardLinkedFiles;
  }
  return limits;
}
