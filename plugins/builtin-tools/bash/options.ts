import { LIMITS_CONFIG_SCHEMA, type ResourceLimits } from './limits.ts';

/**
 * How the `bash` tool isolates commands. Unset: bubblewrap when it is installed and works, else
 * unsandboxed with a startup warning. `bwrap` insists on bubblewrap (startup fails without it);
 * `none` runs commands as the server's user on purpose.
 */
export interface SandboxOptions {
  kind: 'none' | 'bwrap';
  /** With `bwrap`: share the host's network (default false: no network at all). */
  network?: boolean;
  /** With `bwrap`: the bubblewrap binary (default `/usr/bin/bwrap`, where Debian installs it). */
  bwrapPath?: string;
  /**
   * With `bwrap`: absolute host paths commands may read besides the system's programs and
   * libraries, e.g. a tool installed outside /usr (`/opt/tools`, `/home/me/.nvm`).
   */
  expose?: readonly string[];
  /**
   * With `bwrap`, when the server runs as root: the account commands run as (default `nobody`,
   * 65534:65534). The workspace is given to it; the rest of the host is what that account may read.
   */
  user?: { uid: number; gid: number };
}

export interface BashOptions {
  /** Unset: bubblewrap when it works on this machine, otherwise unsandboxed (with a startup warning). */
  sandbox?: SandboxOptions;
  /** Extra environment variable names passed through to commands (the environment is otherwise clean). */
  env?: readonly string[];
  /** Captured bytes kept per stream (stdout, stderr); the rest is dropped with a marker. Default 64 KiB. */
  maxOutputBytes?: number;
  /** The shell that runs `<shell> -c <command>`. Default `/bin/bash`. */
  shell?: string;
  /** After SIGTERM, how long processes get before SIGKILL. Default 2000 ms. */
  killGraceMs?: number;
  /**
   * More of the server's folders the sandbox hides, besides its home, cwd and install folder, where
   * they lie inside what the sandbox shows of the host: the builtin-tools plugin adds the config
   * file's folder and the store's.
   */
  hide?: readonly string[];
  /**
   * rlimits of every command, sandboxed or not: processes, memory and CPU time per process, file
   * size. Unset ones take their defaults (`DEFAULT_LIMITS`).
   */
  limits?: ResourceLimits;
}

/** The config key `bash`: what a config file may set of the bash tool besides its sandbox. */
export interface BashConfig {
  /** rlimits of every command (see `ResourceLimits`). */
  limits?: ResourceLimits;
}

/** JSON Schema of the config key `bash`. */
export const BASH_CONFIG_SCHEMA = {
  type: 'object',
  properties: { limits: LIMITS_CONFIG_SCHEMA },
  additionalProperties: false,
} as const;

export const DEFAULT_BWRAP_PATH = '/usr/bin/bwrap';
export const DEFAULT_SHELL = '/bin/bash';
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;
export const DEFAULT_KILL_GRACE_MS = 2_000;
export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 600_000;

/** JSON Schema of the config key `sandbox` (what `SandboxOptions` accepts from a config file). */
export const SANDBOX_CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    kind: { type: 'string', enum: ['none', 'bwrap'] },
    network: { type: 'boolean', default: false },
    bwrapPath: { type: 'string', minLength: 1 },
    expose: { type: 'array', items: { type: 'string', pattern: '^/' } },
    user: {
      type: 'object',
      properties: { uid: { type: 'integer', minimum: 1 }, gid: { type: 'integer', minimum: 1 } },
      required: ['uid', 'gid'],
      additionalProperties: false,
    },
  },
  required: ['kind'],
  additionalProperties: false,
} as const;
