import { randomUUID } from 'node:crypto';
import type { Agent } from '../agent/agent.ts';
import type { Message } from '../agent/messages.ts';
import { errorMessage } from '../errors.ts';
import type { Kernel } from '../kernel.ts';
import { type Principal, sessionKey } from '../principal.ts';
import { costOf } from '../usage/cost-of.ts';
import type { PriceTable } from '../usage/model-prices.ts';
import { runTotals } from '../usage/run-totals.ts';
import type { CaseResult, EvalCase, Score, Scorer, ScorerInput } from './experiment.ts';

export interface CaseRun {
  kernel: Kernel;
  agent: Agent;
  principal: Principal;
  scorers: readonly Scorer[];
  prices: PriceTable;
  signal: AbortSignal;
}

/**
 * One case: a recorded run of the agent (`via: 'eval'`, so its trace is kept like any run's),
 * waited for, then scored by each scorer. A conversation's earlier messages are put in a fresh
 * session first, so the run continues it.
 */
export async function runCase(
  item: EvalCase,
  { kernel, agent, principal, scorers, prices, signal }: CaseRun,
): Promise<CaseResult> {
  const { text, sessionId } = await prepareInput(item, kernel, agent, principal);
  const started = performance.now();
  const record = await kernel.runs.start(agent, text, {
    principal,
    via: 'eval',
    signal,
    ...(sessionId ? { sessionId } : {}),
  });
  const ended = (await kernel.runs.wait(record.id)) ?? record;
  const latencyMs = Math.round(performance.now() - started);
  const result = ended.result;
  const usage = {
    inputTokens: result?.usage.inputTokens ?? 0,
    outputTokens: result?.usage.outputTokens ?? 0,
    totalTokens: (result?.usage.inputTokens ?? 0) + (result?.usage.outputTokens ?? 0),
    ...(result?.usage.cachedInputTokens ? { cachedInputTokens: result.usage.cachedInputTokens } : {}),
  };
  const cost = await runCost(kernel, record.id, agent, usage, prices);
  const status = ended.status === 'queued' || ended.status === 'running' ? 'interrupted' : ended.status;
  const error = ended.error ?? result?.error;
  const run: ScorerInput['run'] = {
    id: record.id,
    status,
    steps: result?.steps ?? ended.steps ?? 0,
    usage,
    toolCalls: (result?.toolCalls ?? []).map((call) => ({ name: call.name, input: call.input })),
    ...(cost !== undefined ? { cost } : {}),
    latencyMs,
    ...(error ? { error: { code: error.code, message: error.message } } : {}),
  };
  const output = status === 'completed' ? (result?.text ?? '') : '';
  const scores: Record<string, Score> = {};
  for (const scorer of scorers) {
    const verdict = await scoreSafely(scorer, { case: item, output, run, signal });
    if (verdict) scores[scorer.name] = verdict;
  }
  return {
    id: item.id as string,
    input: item.input,
    output,
    runId: record.id,
    status,
    scores,
    latencyMs,
    usage,
    ...(cost !== undefined ? { cost } : {}),
    ...(run.error ? { error: run.error } : {}),
    ...(item.tags ? { tags: item.tags } : {}),
  };
}

/** The user's message, and the session the run continues: the case's own, or a fresh one holding its conversation so far. */
async function prepareInput(item: EvalCase, kernel: Kernel, agent: Agent, principal: Principal) {
  if (typeof item.input === 'string') return { text: item.input, sessionId: item.sessionId };
  const history = item.input.slice(0, -1) as Message[];
  const text = (item.input[item.input.length - 1] as Extract<Message, { role: 'user' }>).content;
  if (history.length === 0) return { text, sessionId: item.sessionId };
  const sessionId = item.sessionId ?? `eval-${randomUUID()}`;
  await kernel.sessions.append(agent.id, sessionKey(principal.id, sessionId), history, principal.id);
  return { text, sessionId };
}

/** What the run cost, priced from its recorded model calls (or, with steps not recorded, from its totals). */
async function runCost(
  kernel: Kernel,
  runId: string,
  agent: Agent,
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number },
  prices: PriceTable,
): Promise<number | undefined> {
  if (kernel.config.runs?.recordSteps === false)
    return costOf(agent.model.modelId, usage, prices) ?? undefined;
  const steps = (await kernel.runs.steps(runId)) ?? [];
  return runTotals(steps, prices).cost ?? undefined;
}

async function scoreSafely(scorer: Scorer, input: ScorerInput): Promise<Score | undefined> {
  try {
    const verdict = await scorer.score(input);
    if (verdict === undefined) return undefined;
    if (typeof verdict?.score !== 'number' || !(verdict.score >= 0 && verdict.score <= 1))
      return {
        score: 0,
        reason: `scorer "${scorer.name}" gave ${JSON.stringify(verdict?.score)}, not a score from 0 to 1`,
      };
    return { score: verdict.score, reason: typeof verdict.reason === 'string' ? verdict.reason : '' };
  } catch (error) {
    // One scorer failing on one case (a judge's network) is that case's score, not the experiment's end.
    return { score: 0, reason: `scorer "${scorer.name}" failed: ${errorMessage(error)}` };
  }
}
