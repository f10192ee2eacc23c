import { parseArgs } from 'node:util';
import { errorMessage, HubosError } from '../core/index.ts';
import { didYouMean } from '../core/internal.ts';
import { badPortMessage, parsePort } from '../plugins/hubos/listen-port.ts';
import { commandHelp } from './command-help.ts';
import { unknownCommand } from './help-command.ts';
import { type CliIO, UsageError } from './io.ts';
import { USAGE } from './usage.ts';

const GLOBAL = {
  config: { type: 'string' },
  mode: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Each command's own flags; anything else is a usage error. */
const COMMANDS = {
  tools: { json: { type: 'boolean' } },
  plugins: { json: { type: 'boolean' } },
  validate: {},
  init: { force: { type: 'boolean' } },
  'create-plugin': { dir: { type: 'string' } },
  run: { session: { type: 'string' }, json: { type: 'boolean' } },
  serve: { port: { type: 'string' }, host: { type: 'string' } },
  mcp: { json: { type: 'boolean' } },
  workflow: { json: { type: 'boolean' }, 'run-id': { type: 'string' } },
  prune: { owner: { type: 'string' }, json: { type: 'boolean' } },
  eval: {
    agent: { type: 'string' },
    concurrency: { type: 'string' },
    threshold: { type: 'string', multiple: true },
    scorer: { type: 'string', multiple: true },
    baseline: { type: 'string' },
    reporter: { type: 'string', multiple: true },
    name: { type: 'string' },
    json: { type: 'boolean' },
  },
  runs: {
    json: { type: 'boolean' },
    agent: { type: 'string' },
    status: { type: 'string' },
    via: { type: 'string' },
    session: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    limit: { type: 'string' },
    q: { type: 'string' },
    out: { type: 'string' },
  },
} as const;

type Command = keyof typeof COMMANDS;

/**
 * Runs the CLI and returns the exit code: 0 success, 1 failure, 2 bad command line. Each command's
 * module loads when that command runs, so one command never pays for the others' imports.
 */
export async function main(
  argv: string[],
  io: CliIO,
  signal: AbortSignal = new AbortController().signal,
): Promise<number> {
  try {
    return await dispatch(argv, io, signal);
  } catch (error) {
    if (error instanceof UsageError) {
      // A command's own mistakes are followed by its own help, the rest by the usage.
      const help = (error.command && commandHelp(error.command)) || USAGE;
      io.stderr.write(`hubos: ${error.message}\n\n${help}`);
      return 2;
    }
    const code = HubosError.is(error) ? ` [${error.code}]` : '';
    // The code ends the message's first line: what follows it (a code frame) is shown as it is.
    const [first, ...rest] = errorMessage(error).split('\n');
    io.stderr.write(`✗ ${[`${first}${code}`, ...rest].join('\n')}\n`);
    if (process.env.HUBOS_DEBUG && error instanceof Error) io.stderr.write(`${error.stack}\n`);
    return 1;
  }
}

async function dispatch(argv: string[], io: CliIO, signal: AbortSignal): Promise<number> {
  // `hubos` alone, `--help` and `--version` are answered by bin/hubos.ts before this module loads.
  const [first = '', ...rest] = argv;
  if (!Object.hasOwn(COMMANDS, first)) throw new UsageError(unknownCommand(first));
  const command = first as Command;
  const { values, positionals } = parse(command, rest);
  if (values.help) {
    io.stdout.write(commandHelp(command) ?? USAGE);
    return 0;
  }
  const kernelFlags = {
    ...(typeof values.config === 'string' ? { config: values.config } : {}),
    ...(typeof values.mode === 'string' ? { mode: values.mode } : {}),
  };
  const expectPositionals =
    command === 'create-plugin' || command === 'mcp'
      ? 1
      : command === 'workflow'
        ? 3
        : command === 'runs'
          ? 2
          : command === 'run'
            ? Number.POSITIVE_INFINITY
            : command === 'eval'
              ? 1
              : 0;
  if (positionals.length > expectPositionals)
    throw new UsageError(`${command}: unexpected argument "${positionals[expectPositionals]}"`, command);
  switch (command) {
    case 'tools':
      return (await import('./commands/tools.ts')).toolsCommand(
        { ...kernelFlags, json: values.json === true },
        io,
      );
    case 'plugins':
      return (await import('./commands/plugins.ts')).pluginsCommand(
        { ...kernelFlags, json: values.json === true },
        io,
      );
    case 'validate':
      return (await import('./commands/validate.ts')).validateCommand(kernelFlags, io);
    case 'init':
      return (await import('./commands/init.ts')).initCommand({ force: values.force === true }, io);
    case 'serve': {
      const port = servePort(values.port);
      return (await import('./commands/serve.ts')).serveCommand(
        {
          ...kernelFlags,
          ...(port !== undefined ? { port } : {}),
          ...(typeof values.host === 'string' ? { host: values.host } : {}),
        },
        io,
        signal,
      );
    }
    case 'run':
      return (await import('./commands/run.ts')).runCommand(
        positionals,
        {
          ...kernelFlags,
          ...(typeof values.session === 'string' ? { session: values.session } : {}),
          json: values.json === true,
        },
        io,
        signal,
      );
    case 'mcp':
      if (positionals[0] === 'list')
        return (await import('./commands/mcp-list.ts')).mcpListCommand(
          { ...kernelFlags, json: values.json === true },
          io,
        );
      if (positionals[0] !== undefined)
        throw new UsageError(
          `mcp: unknown subcommand "${positionals[0]}"${didYouMean(positionals[0], ['list'], (sub) => `hubos mcp ${sub}`)} (try "hubos mcp" or "hubos mcp list")`,
          'mcp',
        );
      return (await import('./commands/mcp.ts')).mcpCommand(kernelFlags, io, signal);
    case 'workflow':
      return (await import('./commands/workflow.ts')).workflowCommand(
        positionals,
        {
          ...kernelFlags,
          json: values.json === true,
          ...(typeof values['run-id'] === 'string' ? { runId: values['run-id'] } : {}),
        },
        io,
        signal,
      );
    case 'runs': {
      const filters = Object.fromEntries(
        (['agent', 'status', 'via', 'since', 'until', 'limit', 'q'] as const)
          .filter((name) => typeof values[name] === 'string')
          .map((name) => [name, values[name] as string]),
      );
      if (typeof values.session === 'string') filters.sessionId = values.session;
      return (await import('./commands/runs.ts')).runsCommand(
        positionals,
        {
          ...kernelFlags,
          json: values.json === true,
          filters,
          ...(typeof values.out === 'string' ? { out: values.out } : {}),
        },
        io,
      );
    }
    case 'prune':
      return (await import('./commands/prune.ts')).pruneCommand(
        {
          ...kernelFlags,
          json: values.json === true,
          ...(typeof values.owner === 'string' ? { owner: values.owner } : {}),
        },
        io,
      );
    case 'eval': {
      const list = (name: string) => values[name] as unknown as string[] | undefined;
      const text = (name: string) =>
        typeof values[name] === 'string' ? { [name]: values[name] as string } : {};
      return (await import('./commands/eval.ts')).evalCommand(
        positionals,
        {
          ...kernelFlags,
          ...text('agent'),
          ...text('concurrency'),
          ...text('baseline'),
          ...text('name'),
          ...(list('threshold') ? { threshold: list('threshold') as string[] } : {}),
          ...(list('scorer') ? { scorer: list('scorer') as string[] } : {}),
          ...(list('reporter') ? { reporter: list('reporter') as string[] } : {}),
          json: values.json === true,
        },
        io,
        signal,
      );
    }
    case 'create-plugin':
      return (await import('./commands/create-plugin.ts')).createPluginCommand(
        positionals[0],
        typeof values.dir === 'string' ? { dir: values.dir } : {},
        io,
      );
  }
}

function parse(command: Command, args: string[]) {
  const options = { ...GLOBAL, ...COMMANDS[command] };
  try {
    const parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
    return {
      values: parsed.values as Record<string, string | boolean | undefined>,
      positionals: parsed.positionals,
    };
  } catch (error) {
    throw new UsageError(
      `${command}: ${parseProblem(error, [...Object.keys(COMMANDS[command]), ...Object.keys(GLOBAL)])}`,
      command,
    );
  }
}

/** parseArgs' complaint in our words: an unknown option names the one a typo meant. */
function parseProblem(error: unknown, names: string[]): string {
  const code = (error as { code?: string }).code;
  const option = /^Unknown option '(-{1,2}[^']*)'/.exec(errorMessage(error))?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) {
    const flags = names.map((name) => `--${name}`);
    // Compared without the dashes, which every option shares and which would make any two look close.
    const guess = didYouMean(option.replace(/^-+/, ''), names, (name) => `--${name}`);
    return `unknown option "${option}"${guess || ` (its options: ${flags.join(', ')})`}`;
  }
  return errorMessage(error);
}

/**
 * The port `hubos serve` was given with --port. PORT is checked here too, so a bad one is the same
 * usage error, though the server applies it (after the config's server.port).
 */
function servePort(flag: string | boolean | undefined): number | undefined {
  if (process.env.PORT) checkedPort(process.env.PORT, 'PORT');
  return typeof flag === 'string' ? checkedPort(flag, '--port') : undefined;
}

function checkedPort(text: string, source: '--port' | 'PORT'): number {
  const port = parsePort(text);
  if (port === undefined) throw new UsageError(badPortMessage(source, text), 'serve');
  return port;
}
