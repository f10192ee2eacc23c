import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  type Kernel,
  type PriceTable,
  parseRunQuery,
  priceTable,
  type RunListParams,
  type RunRecord,
  type RunStep,
  runTotals,
} from '../../core/index.ts';
import { openRunTable } from '../../core/internal.ts';
import { type CliIO, UsageError } from '../io.ts';
import { type KernelFlags, loadKernel } from '../load-kernel.ts';
import { duration, oneLine, runTree } from './run-tree.ts';

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
  io.stdout.write(runTree(run, steps, prices));
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
