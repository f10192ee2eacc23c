import type { Agent } from '../agent/agent.ts';
import { HubosError } from '../errors.ts';
import type { Kernel } from '../kernel.ts';
import { LOCAL, type Principal } from '../principal.ts';
import { newRunId } from '../runs/run-id.ts';
import { priceTable } from '../usage/model-prices.ts';
import { type DatasetDefinition, dataset as inlineDataset, loadDataset } from './dataset.ts';
import type { CaseResult, Dataset, EvalCase, EvaluateResult, Experiment, ScorerSpec } from './experiment.ts';
import { type ExperimentQuery, ExperimentStore } from './experiment-store.ts';
import { runCase } from './run-case.ts';
import { resolveScorers } from './scorers/resolve-scorers.ts';
import { summarize, worseThan } from './summary.ts';

export interface EvaluateOptions {
  /** A booted kernel: its agent answers, its run engine records each case's run, its store keeps the experiment. */
  kernel: Kernel;
  /** The agent, or its name in the kernel. */
  agent: string | Agent;
  /** A loaded dataset, a file's path (from the kernel's cwd), a `{ cases }` definition or a list of cases. */
  dataset: Dataset | DatasetDefinition | EvalCase[] | string;
  /** Default: the dataset's `scorers`, else the built-ins whose expectation some case has. */
  scorers?: ScorerSpec[];
  /** How many cases run at once (default 10; 1 to 1000). */
  concurrency?: number;
  /** Minimum mean per scorer, over the dataset's (these win). */
  thresholds?: Record<string, number>;
  /** An earlier experiment's id (or `latest`: the newest of this agent and dataset): cases that scored lower are marked `worse`. */
  baseline?: string;
  /** Default: `<dataset> <ISO time>`. */
  name?: string;
  /** Whose runs and experiment these are (default LOCAL). */
  principal?: Principal;
  /** Cancels the cases still running; the experiment is stored as failed. */
  signal?: AbortSignal;
  /** Called after each case, in the order they finish. */
  onCase?(result: CaseResult, done: number, total: number): void;
}

export const DEFAULT_CONCURRENCY = 10;
const MAX_CONCURRENCY = 1000;

/**
 * Runs every case of a dataset through an agent and scores it: each case a recorded run (`via:
 * 'eval'`; its trace in the studio), the experiment stored as it goes (`running`, then `completed`
 * with its summary), compared with a baseline when given. Resolves with the experiment, its cases
 * in the dataset's order and the summary; `summary.passed` says whether every threshold was met.
 */
export async function evaluate(options: EvaluateOptions): Promise<EvaluateResult> {
  const { kernel } = options;
  const agent = typeof options.agent === 'string' ? kernel.agent(options.agent) : options.agent;
  const data = await datasetOf(options.dataset, kernel.cwd);
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY)
    throw new HubosError(
      'DATASET_INVALID',
      `evaluate(): "concurrency" must be a whole number from 1 to ${MAX_CONCURRENCY}, got ${JSON.stringify(concurrency)}`,
    );
  const principal = options.principal ?? LOCAL;
  const scorers = resolveScorers(kernel, agent, options.scorers ?? data.scorers, data.cases);
  const thresholds = { ...data.thresholds, ...options.thresholds };
  const names = scorers.map((scorer) => scorer.name);
  for (const [name, min] of Object.entries(thresholds)) {
    if (!names.includes(name))
      throw new HubosError(
        'SCORER_INVALID',
        `a threshold is set for scorer "${name}", which does not run (scorers: ${names.join(', ') || 'none'}): add it with --scorer / "scorers", or drop the threshold`,
      );
    if (typeof min !== 'number' || !(min >= 0 && min <= 1))
      throw new HubosError(
        'SCORER_INVALID',
        `the threshold of "${name}" must be a number from 0 to 1, got ${JSON.stringify(min)}`,
      );
  }
  // Its runs are this instance's: its heartbeat tells a server sharing the store that they still run.
  await kernel.instance.start();
  const store = new ExperimentStore(kernel.store);
  const baseline = await baselineOf(store, options.baseline, principal, agent.id, data.name);
  const started = performance.now();
  const createdAt = new Date().toISOString();
  const experiment: Experiment = {
    id: newRunId(),
    name: options.name ?? `${data.name} ${createdAt}`,
    agent: agent.id,
    model: agent.modelRef,
    dataset: {
      name: data.name,
      version: data.version,
      cases: data.cases.length,
      ...(data.file ? { file: data.file } : {}),
    },
    owner: principal.id,
    ...(baseline ? { baseline: baseline.id } : {}),
    status: 'running',
    createdAt,
  };
  await store.put(experiment);
  const before = new Map(baseline?.cases.map((result) => [result.id, result]));
  const results: CaseResult[] = new Array(data.cases.length);
  const controller = new AbortController();
  const stop = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', stop, { once: true });
  if (options.signal?.aborted) stop();
  const context = {
    kernel,
    agent,
    principal,
    scorers,
    prices: priceTable(kernel.config.pricing),
    signal: controller.signal,
  };
  const summaryOf = (cases: CaseResult[]) =>
    summarize(cases, {
      scorers: names,
      thresholds,
      durationMs: performance.now() - started,
      baseline: baseline?.cases,
    });
  let done = 0;
  let next = 0;
  const worker = async () => {
    while (next < data.cases.length && !controller.signal.aborted) {
      const place = next++;
      const item = data.cases[place] as EvalCase;
      try {
        const result = await runCase(item, context);
        const worse = worseThan(result, before.get(result.id));
        if (worse) result.worse = worse;
        results[place] = result;
        await store.putCases(experiment.id, [result], place);
        done++;
        options.onCase?.(result, done, data.cases.length);
      } catch (error) {
        // The store or the engine failing ends the experiment: the other cases stop too.
        controller.abort(error);
        throw error;
      }
    }
  };
  try {
    const workers = Array.from({ length: Math.min(concurrency, data.cases.length) }, worker);
    const settled = await Promise.allSettled(workers);
    const failure = settled.find((outcome) => outcome.status === 'rejected');
    if (failure) throw failure.reason;
    controller.signal.throwIfAborted();
  } catch (error) {
    controller.abort(error);
    await store.put({
      ...experiment,
      status: 'failed',
      finishedAt: new Date().toISOString(),
      summary: summaryOf(results.filter(Boolean)),
    });
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', stop);
  }
  const summary = summaryOf(results);
  const completed: Experiment = {
    ...experiment,
    status: 'completed',
    finishedAt: new Date().toISOString(),
    summary,
  };
  await store.put(completed);
  return { experiment: completed, cases: results, summary };
}

async function datasetOf(value: EvaluateOptions['dataset'], cwd: string): Promise<Dataset> {
  if (typeof value === 'string') return loadDataset(value, cwd);
  if (Array.isArray(value)) return inlineDataset(value);
  if (typeof value === 'object' && value !== null && typeof (value as Dataset).version === 'string') {
    // A loaded dataset is checked again (it may have been changed, or made by hand) and keeps its name and file.
    const { name, cases, thresholds, scorers, file } = value as Dataset;
    const checked = inlineDataset({
      name,
      cases,
      ...(thresholds ? { thresholds } : {}),
      ...(scorers ? { scorers } : {}),
    });
    return file ? { ...checked, file } : checked;
  }
  return inlineDataset(value);
}

/** The baseline's record and cases: by id, or `latest` (the newest completed one of this agent and dataset). */
async function baselineOf(
  store: ExperimentStore,
  ref: string | undefined,
  principal: Principal,
  agent: string,
  datasetName: string,
): Promise<{ id: string; cases: CaseResult[] } | undefined> {
  if (ref === undefined) return undefined;
  const owner = principal.admin ? undefined : principal.id;
  const found =
    ref === 'latest' ? await latestExperiment(store, owner, agent, datasetName) : await store.get(ref, owner);
  if (!found)
    throw new HubosError(
      'EXPERIMENT_NOT_FOUND',
      ref === 'latest'
        ? `no completed experiment of agent "${agent}" on dataset "${datasetName}" to compare with: run one without --baseline first`
        : `no experiment "${ref}" to compare with (hubos eval prints each experiment's id)`,
    );
  return { id: found.id, cases: await store.cases(found.id) };
}

/** The newest completed experiment of `agent` on the dataset named `datasetName`. */
export async function latestExperiment(
  store: ExperimentStore,
  owner: string | undefined,
  agent: string,
  datasetName: string,
): Promise<Experiment | undefined> {
  let after: ExperimentQuery['after'];
  do {
    const page = await store.list({ owner, agent, limit: 100, after });
    const found = page.experiments.find(
      (experiment) => experiment.status === 'completed' && experiment.dataset.name === datasetName,
    );
    if (found) return found;
    after = page.next;
  } while (after);
  return undefined;
}
