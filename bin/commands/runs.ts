import {
  type Kernel,
  parseRunQuery,
  type RunListParams,
  type RunRecord,
  type RunStep,
} from '../../core/index.ts';
import { openRunTable } from '../../core/internal.ts';
import { type CliIO, UsageError } from '../io.ts';
import { type KernelFlags, loadKernel } from '../load-kernel.ts';

export interface RunsFlags extends KernelFlags {
  json: boolean;
  filters: RunListParams;
}

/**
 * `hubos runs list` (the store's runs, newest first, filtered) and `hubos runs show <id>` (a run
 * and its steps as a tree): read from the config's store, so they need no server.
 */
export async function runsCommand(positionals: string[], flags: RunsFlags, io: CliIO): Promise<number> {
  const [sub, id] = positionals;
  if (sub !== 'list' && sub !== 'show')
    throw new UsageError(
      `runs: ${sub ? `unknown subcommand "${sub}"` : 'say what to do'} (try "hubos runs list" or "hubos runs show <id>")`,
      'runs',
    );
  if (sub === 'show' && !id) throw new UsageError('runs show: which run? (hubos runs show <id>)', 'runs');
  const query = parseRunQuery(flags.filters);
  const kernel = await loadKernel('runs', flags, io);
  try {
    return sub === 'list'
      ? await list(kernel, query, flags.json, io)
      : await show(kernel, id!, flags.json, io);
  } finally {
    await kernel.close();
  }
}

async function list(
  kernel: Kernel,
  query: ReturnType<typeof parseRunQuery>,
  json: boolean,
  io: CliIO,
): Promise<number> {
  const runs = await (await openRunTable(kernel.store)).list(query);
  if (json) {
    io.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
    return 0;
  }
  if (runs.length === 0) {
    io.stdout.write('no runs\n');
    return 0;
  }
  for (const run of runs) {
    const took = run.finishedAt
      ? duration(Date.parse(run.finishedAt) - Date.parse(run.startedAt ?? run.createdAt))
      : '';
    const input = run.input ? `  ${oneLine(run.input, 60)}` : '';
    io.stdout.write(
      `${run.id}  ${run.createdAt.slice(0, 19).replace('T', ' ')}  ${run.status.padEnd(11)} ${run.agent.padEnd(16)} ${(run.via ?? '').padEnd(8)} ${took.padStart(7)}${input}\n`,
    );
  }
  return 0;
}

async function show(kernel: Kernel, id: string, json: boolean, io: CliIO): Promise<number> {
  const table = await openRunTable(kernel.store);
  const run = await table.get(id);
  if (!run) {
    io.stderr.write(`✗ no run "${id}" in ${kernel.configFile ?? 'the default'} store [RUN_NOT_FOUND]\n`);
    return 1;
  }
  const steps = await table.steps(id);
  if (json) {
    io.stdout.write(`${JSON.stringify({ ...run, steps }, null, 2)}\n`);
    return 0;
  }
  io.stdout.write(tree(run, steps));
  return 0;
}

/** A run as an indented tree: the run, each loop step's model call, and the tool calls under it. */
export function tree(run: RunRecord, steps: readonly RunStep[]): string {
  const took = run.finishedAt
    ? ` ${duration(Date.parse(run.finishedAt) - Date.parse(run.startedAt ?? run.createdAt))}`
    : '';
  const usage = run.result?.usage;
  const tokens = usage ? ` · ${usage.inputTokens} in / ${usage.outputTokens} out tokens` : '';
  const lines = [`run ${run.id} · ${run.agent} · ${run.status}${took}${tokens}`];
  if (run.input) lines.push(`│ input: ${oneLine(run.input, 100)}`);
  for (const [i, step] of steps.entries()) {
    const last = i === steps.length - 1;
    const branch = step.kind === 'model' ? (last ? '└─' : '├─') : last ? '└──' : '│ └─';
    const what =
      step.kind === 'model'
        ? `model ${step.name} (step ${step.step})${step.usage ? ` · ${step.usage.inputTokens} in / ${step.usage.outputTokens} out` : ''}${step.finishReason ? ` · ${step.finishReason}` : ''}`
        : `tool ${step.name}${step.status === 'error' ? ` ✗ ${step.error?.code ?? 'error'}` : ''}`;
    lines.push(`${branch} ${what} ${duration(step.durationMs)}`);
  }
  if (run.result?.text) lines.push(`answer: ${oneLine(run.result.text, 200)}`);
  if (run.error) lines.push(`error: ${run.error.code}: ${run.error.message}`);
  return `${lines.join('\n')}\n`;
}

function duration(ms: number): string {
  return ms < 1_000 ? `${Math.max(0, Math.round(ms))} ms` : `${(ms / 1_000).toFixed(1)} s`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
