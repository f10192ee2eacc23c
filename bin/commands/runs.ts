import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  costOf,
  type Kernel,
  type PriceTable,
  parseRunQuery,
  priceTable,
  type RunListParams,
  type RunRecord,
  type RunStep,
  type RunUsageTotals,
  runTotals,
} from '../../core/index.ts';
import { openRunTable } from '../../core/internal.ts';
import { type CliIO, UsageError } from '../io.ts';
import { type KernelFlags, loadKernel } from '../load-kernel.ts';

export interface RunsFlags extends KernelFlags {
  json: boolean;
  filters: RunListParams;
  /** `runs export`: the file to write (default: stdout). */
  out?: string;
}

/**
 * `hubos runs list` (the store's runs, newest first, filtered), `hubos runs show <id>` (a run and
 * its steps as a tree, with tokens and cost) and `hubos runs export <id>` (the run, its steps and
 * totals as JSON): read from the config's store, so they need no server.
 */
export async function runsCommand(positionals: string[], flags: RunsFlags, io: CliIO): Promise<number> {
  const [sub, id] = positionals;
  if (sub !== 'list' && sub !== 'show' && sub !== 'export')
    throw new UsageError(
      `runs: ${sub ? `unknown subcommand "${sub}"` : 'say what to do'} (try "hubos runs list", "hubos runs show <id>" or "hubos runs export <id>")`,
      'runs',
    );
  if (sub !== 'list' && !id) throw new UsageError(`runs ${sub}: which run? (hubos runs ${sub} <id>)`, 'runs');
  if (flags.out !== undefined && sub !== 'export')
    throw new UsageError('runs: --out is for "hubos runs export <id> --out <file>"', 'runs');
  if (flags.out === '') throw new UsageError('runs export: --out needs a file name', 'runs');
  const query = parseRunQuery(flags.filters);
  const kernel = await loadKernel('runs', flags, io);
  try {
    if (sub === 'list') return await list(kernel, query, flags.json, io);
    if (sub === 'export') return await exportRun(kernel, id!, flags.out, io);
    return await show(kernel, id!, flags.json, io);
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

/** A run, its steps and its totals from the config's store; undefined (said on stderr) when there is none. */
async function readRun(
  kernel: Kernel,
  id: string,
  io: CliIO,
): Promise<{ run: RunRecord; steps: RunStep[]; prices: PriceTable } | undefined> {
  const table = await openRunTable(kernel.store);
  const run = await table.get(id);
  if (!run) {
    io.stderr.write(`✗ no run "${id}" in ${kernel.configFile ?? 'the default'} store [RUN_NOT_FOUND]\n`);
    return undefined;
  }
  return { run, steps: await table.steps(id), prices: priceTable(kernel.config.pricing) };
}

async function show(kernel: Kernel, id: string, json: boolean, io: CliIO): Promise<number> {
  const found = await readRun(kernel, id, io);
  if (!found) return 1;
  const { run, steps, prices } = found;
  if (json) {
    io.stdout.write(`${JSON.stringify({ ...run, steps }, null, 2)}\n`);
    return 0;
  }
  io.stdout.write(tree(run, steps, prices));
  return 0;
}

/** The run's record, steps and totals as one JSON document, to stdout or to `out`. */
async function exportRun(kernel: Kernel, id: string, out: string | undefined, io: CliIO): Promise<number> {
  const found = await readRun(kernel, id, io);
  if (!found) return 1;
  const { run, steps, prices } = found;
  const text = `${JSON.stringify({ run, steps, totals: runTotals(steps, prices) }, null, 2)}\n`;
  if (out === undefined) {
    io.stdout.write(text);
    return 0;
  }
  const file = resolve(out);
  await writeFile(file, text);
  io.stderr.write(`wrote run ${id} (${steps.length} steps) to ${file}\n`);
  return 0;
}

/**
 * A run as an indented tree: the run with its tokens and cost, each loop step's model call (its
 * tokens and cost), and the tool calls under it.
 */
export function tree(
  run: RunRecord,
  steps: readonly RunStep[],
  prices: PriceTable = priceTable(undefined),
): string {
  const took = run.finishedAt
    ? ` ${duration(Date.parse(run.finishedAt) - Date.parse(run.startedAt ?? run.createdAt))}`
    : '';
  const totals = runTotals(steps, prices);
  const usage = run.result?.usage;
  const tokens = steps.some((step) => step.kind === 'model')
    ? ` · ${tokensOf(totals)} tokens · ${usd(totals.cost)}${totals.unpricedModels && totals.cost !== null ? ` (no price for ${totals.unpricedModels.join(', ')})` : ''}`
    : usage
      ? ` · ${tokensOf(usage)} tokens`
      : '';
  const lines = [`run ${run.id} · ${run.agent} · ${run.status}${took}${tokens}`];
  if (run.input) lines.push(`│ input: ${oneLine(run.input, 100)}`);
  for (const [i, step] of steps.entries()) {
    const last = i === steps.length - 1;
    const branch = step.kind === 'model' ? (last ? '└─' : '├─') : last ? '└──' : '│ └─';
    const what =
      step.kind === 'model'
        ? `model ${step.name} (step ${step.step})${step.usage ? ` · ${tokensOf(step.usage)} · ${usd(costOf(step.name, step.usage, prices))}` : ''}${step.finishReason ? ` · ${step.finishReason}` : ''}`
        : `tool ${step.name}${step.status === 'error' ? ` ✗ ${step.error?.code ?? 'error'}` : ''}`;
    lines.push(`${branch} ${what} ${duration(step.durationMs)}`);
  }
  if (run.result?.text) lines.push(`answer: ${oneLine(run.result.text, 200)}`);
  if (run.error) lines.push(`error: ${run.error.code}: ${run.error.message}`);
  return `${lines.join('\n')}\n`;
}

/** `3000 in (400 cached) / 150 out`. */
function tokensOf(
  usage: Pick<RunUsageTotals, 'inputTokens' | 'outputTokens'> & { cachedInputTokens?: number },
): string {
  const cached = usage.cachedInputTokens ? ` (${usage.cachedInputTokens} cached)` : '';
  return `${usage.inputTokens} in${cached} / ${usage.outputTokens} out`;
}

/** `$0.00132`, or `no price` for a model the price table does not know. */
function usd(cost: number | null): string {
  return cost === null ? 'no price' : `$${Number(cost.toFixed(6))}`;
}

function duration(ms: number): string {
  return ms < 1_000 ? `${Math.max(0, Math.round(ms))} ms` : `${(ms / 1_000).toFixed(1)} s`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
