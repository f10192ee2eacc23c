import { HubosError, type Kernel } from '../../core/index.ts';
import { didYouMean } from '../../core/internal.ts';
import type { StepShape, Workflow, WorkflowEvent, WorkflowRunResult } from '../../plugins/workflows/index.ts';
import { type CliIO, UsageError } from '../io.ts';
import { type KernelFlags, loadKernel } from '../load-kernel.ts';

const SUBCOMMANDS = 'list, run <name> [<input JSON>], resume <runId>';

/**
 * `hubos workflow list | run <name> [<input JSON>] [--run-id id] | resume <runId>` [--json]: step
 * progress goes to stderr, the output (or with --json the whole result) to stdout. Exit 0 when the
 * run completed, 1 when it failed, 130 when Ctrl-C cancelled it (it can be resumed).
 */
export async function workflowCommand(
  positionals: string[],
  flags: KernelFlags & { json?: boolean; runId?: string },
  io: CliIO,
  signal: AbortSignal,
): Promise<number> {
  const [sub, first, second, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`workflow: unexpected argument "${extra[0]}"`, 'workflow');
  if (sub !== 'list' && sub !== 'run' && sub !== 'resume') {
    const guess = (name: string) => didYouMean(name, ['list', 'run', 'resume'], (s) => `hubos workflow ${s}`);
    throw new UsageError(
      sub === undefined
        ? `workflow needs a subcommand: ${SUBCOMMANDS}`
        : `workflow: unknown subcommand "${sub}"${guess(sub)}; its subcommands: ${SUBCOMMANDS}`,
      'workflow',
    );
  }
  if (sub !== 'list' && !first)
    throw new UsageError(
      `workflow ${sub} needs a ${sub === 'run' ? 'workflow name' : 'run id'}${sub === 'run' ? ' (hubos workflow list shows them)' : ''}`,
      'workflow',
    );
  const input = sub === 'run' ? parseInput(second) : undefined;
  if (sub !== 'run' && second !== undefined)
    throw new UsageError(`workflow ${sub}: unexpected argument "${second}"`, 'workflow');
  const kernel = await loadKernel('workflow', flags, io);
  try {
    const workflows = workflowsOf(kernel);
    if (sub === 'list') return list(workflows, flags.json === true, io);
    const onEvent = (event: WorkflowEvent) => progress(event, kernel, io);
    // A step may wait on nothing the event loop can see (only its signal): stay up until the run ends.
    const keepAlive = setInterval(() => undefined, 1 << 30);
    let result: WorkflowRunResult;
    try {
      if (sub === 'run') {
        const workflow = workflows.get(first!);
        if (!workflow)
          throw new HubosError(
            'CONFIG_INVALID',
            `no workflow "${first}"${didYouMean(first!, workflows.keys())} (workflows: ${[...workflows.keys()].join(', ') || 'none'}): hubos workflow list shows them`,
          );
        result = await workflow.run(input, {
          signal,
          onEvent,
          ...(flags.runId ? { runId: flags.runId } : {}),
        });
      } else {
        const owner = await findRun(workflows, first!);
        result = await owner.resume(first!, { signal, onEvent });
      }
    } finally {
      clearInterval(keepAlive);
    }
    return finish(result, flags.json === true, io, signal);
  } finally {
    await kernel.close();
  }
}

function parseInput(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `workflow run: the input is not JSON (${(error as Error).message}); quote it, e.g. '{"topic": "otters"}'`,
      'workflow',
    );
  }
}

function workflowsOf(kernel: Kernel): ReadonlyMap<string, Workflow> {
  if (kernel.hasService('workflows')) return kernel.service('workflows');
  throw new HubosError(
    'CONFIG_INVALID',
    'this config has no workflows: add a "workflows" key (see defineWorkflow)',
  );
}

async function findRun(workflows: ReadonlyMap<string, Workflow>, runId: string): Promise<Workflow> {
  for (const workflow of workflows.values()) if (await workflow.getRun(runId)) return workflow;
  throw new HubosError('RUN_NOT_RUNNING', `no workflow run "${runId}" in this config's store`);
}

function list(workflows: ReadonlyMap<string, Workflow>, json: boolean, io: CliIO): number {
  const shapes = [...workflows.values()].map((workflow) => workflow.describe());
  if (json) {
    io.stdout.write(`${JSON.stringify(shapes, null, 2)}\n`);
    return 0;
  }
  io.stdout.write(shapes.length === 0 ? 'No workflows.\n' : `${shapes.length} workflow(s):\n`);
  for (const shape of shapes) {
    io.stdout.write(`\n${shape.name}${shape.description ? `  ${shape.description}` : ''}\n`);
    const draw = (steps: StepShape[], indent: string) => {
      for (const step of steps) {
        const what = step.agent ?? step.tool ?? step.team ?? '';
        io.stdout.write(
          `${indent}- ${step.id} (${step.kind}${what ? ` ${what}` : ''}${step.max ? `, at most ${step.max}` : ''})\n`,
        );
        if (step.steps) draw(step.steps, `${indent}    `);
        if (step.else?.length) {
          io.stdout.write(`${indent}    else:\n`);
          draw(step.else, `${indent}    `);
        }
      }
    };
    draw(shape.steps, '  ');
  }
  return 0;
}

/**
 * One line per step event; tool calls a policy asks about are refused, and tools' questions
 * declined (nobody can answer here).
 */
function progress(event: WorkflowEvent, kernel: Kernel, io: CliIO): void {
  switch (event.type) {
    case 'workflow-start':
      io.stderr.write(`${event.resumed ? 'resuming' : 'run'} ${event.runId}\n`);
      return;
    case 'workflow-step-start':
      io.stderr.write(
        `  ▶ ${event.key} (${event.kind})${event.attempt > 1 ? ` attempt ${event.attempt}` : ''}\n`,
      );
      return;
    case 'workflow-step-error':
      io.stderr.write(`  ✗ ${event.key}: ${event.error.message}${event.willRetry ? ' — retrying' : ''}\n`);
      return;
    case 'workflow-step-finish':
      if (event.record.status === 'completed')
        io.stderr.write(`  ✓ ${event.record.key} ${event.record.durationMs} ms\n`);
      return;
    case 'approval-request':
      if ('stepId' in event)
        void kernel.approvals
          .decide(event.runId, event.callId, {
            approved: false,
            reason: event.question
              ? 'hubos workflow cannot ask questions: run the workflow on the server (its page and REST answer them)'
              : 'hubos workflow cannot ask for approvals: allow the permission in the config, or run it on the server',
          })
          .catch(() => undefined);
      return;
  }
}

function finish(result: WorkflowRunResult, json: boolean, io: CliIO, signal: AbortSignal): number {
  if (json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else if (result.status === 'completed' && result.output !== undefined)
    io.stdout.write(
      `${typeof result.output === 'string' ? result.output : JSON.stringify(result.output, null, 2)}\n`,
    );
  const took = Date.parse(result.finishedAt ?? result.updatedAt) - Date.parse(result.createdAt);
  if (result.status === 'completed') {
    io.stderr.write(`completed in ${took} ms\n`);
    return 0;
  }
  // A cancelled run names no step in its error: the step cut short is the last not completed.
  const stepId =
    result.error?.stepId ?? result.steps.filter((step) => step.status !== 'completed').at(-1)?.id;
  const where = stepId ? ` at step "${stepId}"` : '';
  io.stderr.write(
    `${result.status}${where}: ${result.error?.message ?? ''}\n` +
      `resume it with: hubos workflow resume ${result.runId}\n`,
  );
  return result.status === 'cancelled' && signal.aborted ? 130 : 1;
}
