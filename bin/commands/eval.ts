import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { type Dataset, type EvaluateResult, evaluate, LOCAL, loadDataset } from '../../core/index.ts';
import { didYouMean } from '../../core/internal.ts';
import type { CliIO } from '../io.ts';
import { UsageError } from '../io.ts';
import { type KernelFlags, loadKernel } from '../load-kernel.ts';
import { registerSelfResolve } from '../self-resolve.ts';
import { junitReport } from './eval-junit.ts';
import { type ProgressOut, progressBar } from './eval-progress.ts';
import { resultsTable } from './eval-table.ts';

export interface EvalFlags extends KernelFlags {
  agent?: string;
  concurrency?: string;
  threshold?: string[];
  scorer?: string[];
  baseline?: string;
  reporter?: string[];
  name?: string;
  json?: boolean;
}

interface Reporter {
  format: 'json' | 'junit';
  path: string;
}

/**
 * `hubos eval <dataset>`: runs each case of the dataset through an agent (a recorded run each),
 * scores it, stores the experiment, prints a table of the results (or JSON) and writes the
 * reports asked for. Exit 0 when every threshold is met, 1 when one is not (or the run fails),
 * 2 for a bad command line, 130 when Ctrl-C cancelled it.
 */
export async function evalCommand(
  positionals: string[],
  flags: EvalFlags,
  io: CliIO & { stderr: ProgressOut },
  signal: AbortSignal,
): Promise<number> {
  const [file] = positionals;
  if (!file) throw new UsageError('eval needs a dataset file, e.g. hubos eval evals/support.jsonl', 'eval');
  const concurrency = flags.concurrency === undefined ? undefined : parseConcurrency(flags.concurrency);
  const thresholds = parseThresholds(flags.threshold ?? []);
  const reporters = (flags.reporter ?? []).map(parseReporter);
  if (flags.baseline !== undefined && flags.baseline.trim() === '')
    throw new UsageError('eval: --baseline takes an experiment id or "latest"', 'eval');
  // A dataset module may import 'hubos': it resolves to this copy, as a config's does.
  registerSelfResolve();
  const dataset: Dataset = await loadDataset(file, io.cwd);
  const kernel = await loadKernel('eval', flags, io);
  try {
    const live = kernel.listAgents().map((one) => one.id);
    // The default is the config's own agent: a Stars team's members are agents too, made from it.
    const declared = Object.keys(kernel.config.agents ?? {}).filter((name) => live.includes(name));
    const agent = pickAgent(flags.agent === undefined && declared.length > 0 ? declared : live, flags.agent);
    for (const name of flags.scorer ?? [])
      if (!kernel.scorers.has(name))
        throw new UsageError(
          `eval: no scorer named "${name}"${didYouMean(name, kernel.scorers.names())} (scorers: ${kernel.scorers.names().join(', ')})`,
          'eval',
        );
    io.stderr.write(
      `eval: ${dataset.cases.length} ${dataset.cases.length === 1 ? 'case' : 'cases'} of ${dataset.name} (${dataset.version}) · agent "${agent}" · concurrency ${concurrency ?? 10}\n`,
    );
    await kernel.instance.start();
    const bar = progressBar(io.stderr, dataset.cases.length);
    let failed = 0;
    let result: EvaluateResult;
    try {
      result = await evaluate({
        kernel,
        agent,
        dataset,
        principal: LOCAL,
        signal,
        ...(flags.scorer?.length ? { scorers: flags.scorer } : {}),
        ...(concurrency !== undefined ? { concurrency } : {}),
        ...(Object.keys(thresholds).length ? { thresholds } : {}),
        ...(flags.baseline !== undefined ? { baseline: flags.baseline } : {}),
        ...(flags.name !== undefined ? { name: flags.name } : {}),
        onCase: (item, done) => {
          if (item.status !== 'completed') failed++;
          bar.update(done, failed);
        },
      });
    } catch (error) {
      bar.end();
      if (!signal.aborted) throw error;
      io.stderr.write(
        'eval: cancelled; the experiment is kept, marked failed, with the cases that finished\n',
      );
      return 130;
    }
    bar.end();
    io.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : resultsTable(result));
    for (const reporter of reporters) {
      const path = resolve(io.cwd, reporter.path);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(
        path,
        reporter.format === 'json' ? `${JSON.stringify(result, null, 2)}\n` : junitReport(result),
      );
      io.stderr.write(`eval: wrote the ${reporter.format} report to ${path}\n`);
    }
    return result.summary.passed ? 0 : 1;
  } finally {
    await kernel.close();
  }
}

/** The agent named, or the only one of `agents`. */
function pickAgent(agents: string[], wanted: string | undefined): string {
  if (wanted !== undefined) {
    if (agents.includes(wanted)) return wanted;
    throw new UsageError(
      `eval: no agent named "${wanted}"${didYouMean(wanted, agents)} (agents: ${agents.join(', ') || 'none'})`,
      'eval',
    );
  }
  if (agents.length === 1) return agents[0] as string;
  throw new UsageError(
    agents.length === 0
      ? 'eval: the config has no agents: add one under "agents" in agent.config.ts'
      : `eval: the config has ${agents.length} agents: say which with --agent (${agents.join(', ')})`,
    'eval',
  );
}

function parseConcurrency(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < 1 || value > 1000)
    throw new UsageError(`eval: --concurrency must be a whole number from 1 to 1000, got "${text}"`, 'eval');
  return value;
}

function parseThresholds(items: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) {
    const match = /^([^=\s]+)=(.+)$/.exec(item.trim());
    const value = match ? Number(match[2]) : Number.NaN;
    if (!match || !(value >= 0 && value <= 1) || (match[2] as string).trim() === '')
      throw new UsageError(
        `eval: --threshold is <scorer>=<minimum mean from 0 to 1>, e.g. --threshold contains=0.9; got "${item}"`,
        'eval',
      );
    out[match[1] as string] = value;
  }
  return out;
}

function parseReporter(item: string): Reporter {
  const match = /^(json|junit)=(.+)$/.exec(item);
  if (!match)
    throw new UsageError(
      `eval: --reporter is json=<file> or junit=<file>, e.g. --reporter junit=reports/eval.xml; got "${item}"`,
      'eval',
    );
  return { format: match[1] as Reporter['format'], path: match[2] as string };
}
