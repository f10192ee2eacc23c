import type { AgentEvent, RunResult } from '../../core/index.ts';
import { HubosError } from '../../core/index.ts';
import type { CliIO } from '../io.ts';
import { UsageError } from '../io.ts';
import { type KernelFlags, loadKernel } from '../load-kernel.ts';

const OFFLINE_NOTE =
  ' (the offline demo model: set OPENAI_API_KEY or ANTHROPIC_API_KEY, or "model" in agent.config.ts, for a real one)';

/**
 * `hubos run <agent> "<message>"`: streams the answer to stdout as it arrives and the tool calls
 * to stderr as they start and finish. Exit 0 done, 1 failed, 130 interrupted (Ctrl-C cancels the run).
 */
export async function runCommand(
  positionals: string[],
  flags: KernelFlags & { session?: string; json?: boolean },
  io: CliIO,
  signal: AbortSignal,
): Promise<number> {
  const [name, ...words] = positionals;
  if (!name || words.length === 0)
    throw new UsageError('run needs an agent and a message, e.g. hubos run assistant "hello"');
  const message = words.join(' ');
  const kernel = await loadKernel('run', flags, io);
  try {
    const agent = kernel.agent(name);
    io.stderr.write(
      `agent "${agent.id}" · model ${agent.modelRef}${agent.model.provider === 'offline' ? OFFLINE_NOTE : ''}\n`,
    );
    const options = { ...(flags.session ? { sessionId: flags.session } : {}), signal };
    if (flags.json) {
      const result = await agent.run(message, options).catch((error: unknown) => {
        if (HubosError.is(error) && error.details.result) return error.details.result as RunResult;
        throw error;
      });
      io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return exitCode(result);
    }
    let result: RunResult | undefined;
    let midLine = false;
    for await (const event of agent.stream(message, options)) {
      result = show(event, io, midLine) ?? result;
      if (event.type === 'text-delta') midLine = !event.delta.endsWith('\n');
      else if (event.type === 'step-finish' && midLine) {
        io.stdout.write('\n');
        midLine = false;
      }
    }
    return result ? exitCode(result) : 1;
  } finally {
    await kernel.close();
  }
}

function show(event: AgentEvent, io: CliIO, midLine: boolean): RunResult | undefined {
  const newline = midLine ? '\n' : '';
  switch (event.type) {
    case 'text-delta':
      io.stdout.write(event.delta);
      return undefined;
    case 'tool-call-end':
      io.stderr.write(`${newline}→ ${event.name} ${truncate(JSON.stringify(event.input) ?? '', 200)}\n`);
      return undefined;
    case 'tool-result':
      io.stderr.write(
        event.call.ok
          ? `✓ ${event.call.name} (${event.call.durationMs} ms)\n`
          : `✗ ${event.call.name}: ${truncate(event.call.error?.message ?? '', 300)}\n`,
      );
      return undefined;
    case 'run-finish':
      if (event.result.status === 'cancelled') io.stderr.write(`${newline}cancelled\n`);
      else if (event.result.stopReason === 'max-steps')
        io.stderr.write(`${newline}stopped after ${event.result.steps} steps (maxSteps)\n`);
      return event.result;
    case 'run-error':
      io.stderr.write(`${newline}✗ ${event.error.message} [${event.error.code}]\n`);
      return event.result;
    default:
      return undefined;
  }
}

function exitCode(result: RunResult): number {
  return result.status === 'completed' ? 0 : result.status === 'cancelled' ? 130 : 1;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
