import { defineTool, type Tool } from '../../../core/index.ts';
import { cleanEnv } from './clean-env.ts';
import { type Launcher, resolveLauncher } from './launcher.ts';
import { DEFAULT_LIMITS, type ResourceLimits } from './limits.ts';
import {
  type BashOptions,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_SHELL,
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
} from './options.ts';
import { type BashResult, runCommand } from './run-command.ts';

const inputSchema = {
  type: 'object',
  properties: {
    command: { type: 'string', minLength: 1, description: 'The shell command to run (bash -c).' },
    timeout: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_TIMEOUT_MS,
      default: DEFAULT_TIMEOUT_MS,
      description: `Milliseconds before the command is stopped (default ${DEFAULT_TIMEOUT_MS}, max ${MAX_TIMEOUT_MS}).`,
    },
  },
  required: ['command'],
  additionalProperties: false,
} as const;

/** The input of a `bash` call, as its handler gets it (defaults applied). */
export interface BashInput {
  /** The shell command to run (`bash -c`). */
  command: string;
  /** Milliseconds before the command is stopped. */
  timeout: number;
}

/**
 * The `bash` tool: runs a command in the workspace with a clean environment, a timeout that stops
 * every process it started, and capped output. Sandboxed in bubblewrap unless `sandbox` says
 * `none` or bubblewrap does not work here (see `resolveLauncher`). `checkSandbox(options)` belongs
 * at startup.
 */
export function bashTool(options: BashOptions = {}): Tool<BashInput, BashResult> {
  const shell = options.shell ?? DEFAULT_SHELL;
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const { launcher } = resolveLauncher(options);
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  return defineTool({
    name: 'bash',
    description: describe(launcher, maxOutputBytes, limits),
    inputSchema,
    permissions: ['shell:exec'],
    handler: ({ signal }, { input, sandbox }) =>
      runCommand({
        command: input.command,
        cwd: sandbox.root,
        env: cleanEnv({ home: sandbox.root, shell, extra: options.env ?? [] }),
        shell,
        timeoutMs: input.timeout,
        signal,
        maxOutputBytes,
        killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
        launcher,
        hide: options.hide,
        limits: options.limits,
      }),
  });
}

/** Tells the model the rules it will otherwise discover by failing. */
function describe(launcher: Launcher, maxOutputBytes: number, limits: Required<ResourceLimits>): string {
  const mib = (bytes: number) => `${Math.round(bytes / 1024 ** 2)} MiB`;
  const lines = [
    'Runs a shell command with bash -c in the workspace folder and returns exitCode, stdout, stderr and durationMs.',
    'Non-interactive: stdin is empty, so never wait for input. Background processes are stopped when the command ends.',
    `Output over ${maxOutputBytes} bytes per stream keeps its start and end with a "[... N more bytes dropped]" marker between.`,
    `"timeout" is in milliseconds (default ${DEFAULT_TIMEOUT_MS}); a timed-out command is stopped and reports timedOut: true.`,
  ];
  lines.push(
    `Limits: ${limits.processes} processes, ${mib(limits.memoryBytes)} of memory and ${limits.cpuSeconds} s of CPU per process, files up to ${mib(limits.fileBytes)}.`,
  );
  if (launcher.kind === 'bwrap') {
    lines.push(
      `Sandboxed: only the workspace is writable, /tmp is private and empty, the system's programs and libraries are read-only and the rest of the host is not there${launcher.sandbox.network ? '' : ', and there is no network'}.`,
    );
  }
  return lines.join('\n');
}
