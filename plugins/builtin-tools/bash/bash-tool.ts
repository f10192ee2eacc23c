import { defineTool, type Tool } from '../../../core/index.ts';
import { cleanEnv } from './clean-env.ts';
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
 * the whole process tree, and capped output. `checkSandbox(options)` belongs at startup.
 */
export function bashTool(options: BashOptions = {}): Tool<BashInput, BashResult> {
  const shell = options.shell ?? DEFAULT_SHELL;
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  return defineTool({
    name: 'bash',
    description: describe(options, maxOutputBytes),
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
        sandbox: options.sandbox,
      }),
  });
}

/** Tells the model the rules it will otherwise discover by failing. */
function describe(options: BashOptions, maxOutputBytes: number): string {
  const lines = [
    'Runs a shell command with bash -c in the workspace folder and returns exitCode, stdout, stderr and durationMs.',
    'Non-interactive: stdin is empty, so never wait for input. Background processes are stopped when the command ends.',
    `Output over ${maxOutputBytes} bytes per stream keeps its start and end with a "[... N more bytes dropped]" marker between.`,
    `"timeout" is in milliseconds (default ${DEFAULT_TIMEOUT_MS}); a timed-out command is stopped and reports timedOut: true.`,
  ];
  if (options.sandbox?.kind === 'bwrap') {
    lines.push(
      `Sandboxed: only the workspace is writable (plus a private /tmp)${options.sandbox.network ? '' : ', and there is no network'}.`,
    );
  }
  return lines.join('\n');
}
