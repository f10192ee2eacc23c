import {
  costOf,
  type PriceTable,
  priceTable,
  type RunRecord,
  type RunStep,
  type RunUsageTotals,
  runTotals,
  type StepTrack,
} from '../../core/index.ts';

/** One line of the tree and the lines under it. */
interface Node {
  text: string;
  children: Node[];
}

/**
 * A run as an indented tree: the run with its duration, tokens and cost; its loop steps, each with
 * its model call and the tool calls under that call; the child tracks (sub-agents, Stars members)
 * under the `task` call that started them, their steps nested the same way.
 */
export function runTree(
  run: RunRecord,
  steps: readonly RunStep[],
  prices: PriceTable = priceTable(undefined),
): string {
  const tracked = steps;
  const byTrack = new Map<string, RunStep[]>();
  for (const step of tracked) {
    const runId = step.track?.runId ?? run.id;
    const list = byTrack.get(runId);
    if (list) list.push(step);
    else byTrack.set(runId, [step]);
  }
  const tracks = new Map<string, StepTrack>();
  for (const step of tracked) if (step.track) tracks.set(step.track.runId, step.track);
  const placed = new Set<string>();

  /** Where a track hangs: its parent track, else the run itself. */
  const parentOf = (track: StepTrack): string =>
    track.parentRunId !== undefined && tracks.has(track.parentRunId) && track.parentRunId !== track.runId
      ? track.parentRunId
      : run.id;
  const childTracks = (runId: string): StepTrack[] =>
    [...tracks.values()].filter((track) => parentOf(track) === runId && track.runId !== runId);

  /** The steps of a track and of the tracks under it: what its totals count (each track once). */
  const stepsUnder = (runId: string, seen = new Set<string>()): RunStep[] => {
    if (seen.has(runId)) return [];
    seen.add(runId);
    return [
      ...(byTrack.get(runId) ?? []),
      ...childTracks(runId).flatMap((track) => stepsUnder(track.runId, seen)),
    ];
  };

  const trackNode = (track: StepTrack): Node => {
    placed.add(track.runId);
    const under = stepsUnder(track.runId);
    return {
      text: `${track.kind === 'member' ? 'member ' : ''}${track.label}${span(under)}${usageOf(under, prices)}`,
      children: trackChildren(track.runId),
    };
  };

  /** The child tracks a tool call started. */
  const startedBy = (runId: string, callId: string | undefined): Node[] =>
    callId === undefined
      ? []
      : childTracks(runId)
          .filter((track) => track.callId === callId && !placed.has(track.runId))
          .map(trackNode);

  const toolNode = (runId: string, step: RunStep): Node => ({
    text: `tool ${step.name}${step.status === 'error' ? ` ✗ ${step.error?.code ?? 'error'}` : ''} · ${duration(step.durationMs)}`,
    children: startedBy(runId, step.callId),
  });

  const modelNode = (step: RunStep, tools: Node[]): Node => ({
    text: `model ${step.name} · ${duration(step.durationMs)}${step.usage ? ` · ${tokensOf(step.usage)} · ${usd(costOf(step.name, step.usage, prices))}` : ''}${step.finishReason ? ` · ${step.finishReason}` : ''}${step.status === 'error' ? ` ✗ ${step.error?.code ?? 'error'}` : ''}`,
    children: tools,
  });

  /** A track's lines: its loop steps (and workflow steps) in order, then child tracks no call of it started. */
  const trackChildren = (runId: string): Node[] => {
    const own = byTrack.get(runId) ?? [];
    const nodes: Node[] = [];
    let loop: { step: number; steps: RunStep[] } | undefined;
    const closeLoop = () => {
      if (loop) nodes.push(loopNode(runId, loop.step, loop.steps));
      loop = undefined;
    };
    const open = (step: number) => {
      loop = { step, steps: [] };
      return loop;
    };
    for (const step of own) {
      if (step.kind === 'step' || step.kind === 'decision') {
        closeLoop();
        nodes.push({
          text: `${step.kind} ${step.name}${step.status === 'error' ? ` ✗ ${step.error?.code ?? 'error'}` : ''} · ${duration(step.durationMs)}`,
          children: [],
        });
        continue;
      }
      let current = loop;
      if (current?.step !== step.step) {
        closeLoop();
        current = open(step.step);
      }
      current.steps.push(step);
    }
    closeLoop();
    // Tracks whose starting call is not among the steps (not recorded, or no call id): at the end.
    for (const track of childTracks(runId)) if (!placed.has(track.runId)) nodes.push(trackNode(track));
    return nodes;
  };

  /** A loop step: its model call with the tool calls under it (tools of a resumed step stand alone). */
  const loopNode = (runId: string, number: number, steps: RunStep[]): Node => {
    const children: Node[] = [];
    let model: { step: RunStep; tools: Node[] } | undefined;
    const closeModel = () => {
      if (model) children.push(modelNode(model.step, model.tools));
      model = undefined;
    };
    for (const step of steps) {
      if (step.kind === 'model') {
        closeModel();
        model = { step, tools: [] };
      } else if (model) model.tools.push(toolNode(runId, step));
      else children.push(toolNode(runId, step));
    }
    closeModel();
    const under = steps.flatMap((step) => [
      step,
      ...childTracks(runId)
        .filter((track) => step.callId !== undefined && track.callId === step.callId)
        .flatMap((track) => stepsUnder(track.runId)),
    ]);
    return { text: `step ${number}${span(steps)}${usageOf(under, prices)}`, children };
  };

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
  if (run.model) lines.push(`│ model: ${run.model}`);
  if (run.againOf) lines.push(`│ again of: ${run.againOf}`);
  if (run.input) lines.push(`│ input: ${oneLine(run.input, 100)}`);
  draw(trackChildren(run.id), '', lines);
  if (run.result?.text) lines.push(`answer: ${oneLine(run.result.text, 200)}`);
  if (run.error) lines.push(`error: ${run.error.code}: ${run.error.message}`);
  return `${lines.join('\n')}\n`;
}

function draw(nodes: readonly Node[], prefix: string, lines: string[]): void {
  for (const [i, node] of nodes.entries()) {
    const last = i === nodes.length - 1;
    lines.push(`${prefix}${last ? '└─' : '├─'} ${node.text}`);
    draw(node.children, `${prefix}${last ? '   ' : '│  '}`, lines);
  }
}

/** ` · 1.2 s`: from the first step's start to the last one's end. */
function span(steps: readonly RunStep[]): string {
  if (steps.length === 0) return '';
  const start = Math.min(...steps.map((step) => Date.parse(step.startedAt)));
  const end = Math.max(...steps.map((step) => Date.parse(step.finishedAt)));
  return ` · ${duration(end - start)}`;
}

/** ` · 300 in / 20 out · $0.0012` of the model calls among `steps`; nothing when there are none. */
function usageOf(steps: readonly RunStep[], prices: PriceTable): string {
  if (!steps.some((step) => step.kind === 'model')) return '';
  const totals = runTotals(steps, prices);
  return ` · ${tokensOf(totals)} · ${usd(totals.cost)}`;
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

export function duration(ms: number): string {
  return ms < 1_000 ? `${Math.max(0, Math.round(ms))} ms` : `${(ms / 1_000).toFixed(1)} s`;
}

export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
