import type { AgentEvent } from '../agent/events.ts';
import type { Message, Usage } from '../agent/messages.ts';
import { HubosError } from '../errors.ts';
import type { LanguageModel, ToolDefinition } from '../model/model.ts';
import { limitsOf, type ModelLimitsTable } from '../model/model-limits.ts';
import {
  CHARS_PER_TOKEN,
  ESTIMATE_COUNTER,
  estimateTokens,
  MESSAGE_OVERHEAD,
  tokenCounter,
} from '../model/tokens.ts';
import { sessionOwner } from '../principal.ts';
import type { Store } from '../store/store.ts';
import type { ResolvedCompaction } from './context-config.ts';
import { cutPoint } from './cut-point.ts';
import { summarize } from './summarize.ts';
import { anchorOf, type ContextSummary, summaryKey, summaryTable } from './summary-store.ts';

/** What an agent's compaction needs from its kernel. */
export interface CompactionDeps {
  agent: string;
  config: ResolvedCompaction;
  limits: ModelLimitsTable;
  store: Store;
  /** Sessions are kept (`sessions.persist`): only then is a session's summary kept beside it. */
  persist: boolean;
  /** The model a reference names (`compaction.model`). */
  resolveModel?: (ref: string) => LanguageModel;
}

/** One run's view of its conversation. */
export interface CompactionRun {
  runId: string;
  sessionId: string | undefined;
  principal: string | undefined;
  model: LanguageModel;
  modelRef: string;
  /** The run's own input (a task, a prompt): never summarized away. */
  pinned: Message | undefined;
  signal: AbortSignal;
  emit: (event: AgentEvent) => void;
  /** The summarizing calls' usage, and the model that made it (priced as itself). */
  addUsage: (usage: Partial<Usage>, model: string) => void;
}

/** The parts of a request besides its messages, which count against the window too. */
export interface RequestFrame {
  system?: string | undefined;
  tools: readonly ToolDefinition[];
}

/** The longest summary asked for, whatever the window. */
const MAX_SUMMARY_TOKENS = 8_192;

/** The summary a run's requests start with, and how many of its messages it stands for. */
interface State {
  summary: string;
  through: number;
}

/**
 * An agent's compaction: built once per agent; `start` makes each run's. Throws AGENT_INVALID at
 * build when compaction was asked for by name and the model's window is unknown.
 */
export class Compaction {
  readonly #deps: CompactionDeps;

  constructor(deps: CompactionDeps) {
    this.#deps = deps;
  }

  /** The window of `modelRef`: the config's own, else the limits table's; undefined when unknown. */
  windowOf(modelRef: string): number | undefined {
    return this.#deps.config.contextWindow ?? limitsOf(modelRef, this.#deps.limits)?.contextWindow;
  }

  /**
   * Checks, at the agent's build, that its model's window is known when compaction was asked for,
   * and that the summarizing model it names exists (MODEL_NOT_FOUND from the registry otherwise).
   */
  check(modelRef: string): void {
    const summarizer = this.#deps.config.model;
    if (summarizer !== undefined && summarizer !== modelRef) this.#deps.resolveModel?.(summarizer);
    if (this.#deps.config.explicit && this.windowOf(modelRef) === undefined)
      throw new HubosError(
        'AGENT_INVALID',
        `agent "${this.#deps.agent}": context.compaction needs the context window of "${modelRef}", which is not known: set agents.${this.#deps.agent}.context.compaction.contextWindow, or add the model to the top-level modelLimits`,
        { details: { agent: this.#deps.agent } },
      );
  }

  /** The model that summarizes for a run on `modelRef`: `compaction.model`, else the run's own. */
  summarizerOf(modelRef: string): string {
    return this.#deps.config.model ?? modelRef;
  }

  /** A run's compaction; undefined when its model's window is unknown (compaction then stays off). */
  start(run: CompactionRun): RunCompaction | undefined {
    const window = this.windowOf(run.modelRef);
    if (window === undefined) return undefined;
    return new RunCompaction(this.#deps, run, Math.floor(window * this.#deps.config.threshold));
  }
}

/** One run's compaction: its requests' messages, summarized once they would pass the limit. */
export class RunCompaction {
  readonly #deps: CompactionDeps;
  readonly #run: CompactionRun;
  /** Tokens a request may hold: the threshold's share of the window. */
  readonly #limit: number;
  #state: State | undefined;
  /** The session's stored summary was read (it is read only once a request nears the limit). */
  #loaded = false;

  constructor(deps: CompactionDeps, run: CompactionRun, limit: number) {
    this.#deps = deps;
    this.#run = run;
    this.#limit = limit;
  }

  /**
   * The messages to send for `all` (the session's history, then the run's own): as they are while
   * they fit, else the summary of the older part and the recent turns verbatim.
   */
  async messages(step: number, all: Message[], frame: RequestFrame): Promise<Message[]> {
    let view = this.#view(all);
    // The cheap estimate first: most turns end here, with no store read and no tokenizer.
    if (estimateOf(view, frame) <= this.#limit) return view;
    if (!this.#loaded) {
      this.#loaded = true;
      this.#state = await this.#load(all);
      view = this.#view(all);
      if (estimateOf(view, frame) <= this.#limit) return view;
    }
    // A tokenizer that cannot load (a trimmed install) leaves the estimate, which errs high.
    const counter = await tokenCounter(this.#run.modelRef).catch(() => ESTIMATE_COUNTER);
    const count = (messages: Message[]) =>
      counter.request({ ...(frame.system ? { system: frame.system } : {}), tools: frame.tools, messages });
    let tokens = counter.exact ? count(view) : estimateOf(view, frame);
    // Twice at most: by turns, then (one long turn) by steps.
    for (let round = 0; round < 2 && tokens > this.#limit; round++) {
      const cut = cutPoint(all, this.#state?.through ?? 0, this.#deps.config.keepTurns);
      if (cut === undefined) break;
      const before = tokens;
      // No summary came back: the request goes as it is, rather than without what the summary held.
      if (!(await this.#compact(all, cut))) break;
      view = this.#view(all);
      tokens = counter.exact ? count(view) : estimateOf(view, frame);
      this.#run.emit({
        type: 'compaction',
        runId: this.#run.runId,
        step,
        tokensBefore: before,
        tokensAfter: tokens,
        through: cut,
        model: this.#summarizerRef(),
      });
    }
    return view;
  }

  /** `all` as the model sees it: the run's input where it was, the summary, then what follows it. */
  #view(all: Message[]): Message[] {
    const state = this.#state;
    // Not copied: the caller made `all` for this request.
    if (!state) return all;
    const summary: Message = {
      role: 'user',
      content: `[Summary of the earlier conversation, kept to save space; the messages after it are verbatim]\n${state.summary}`,
    };
    const pinned = this.#run.pinned;
    const pinnedAt = pinned ? all.indexOf(pinned) : -1;
    const head = pinnedAt !== -1 && pinnedAt < state.through ? [pinned!] : [];
    return [...head, summary, ...all.slice(state.through)];
  }

  /** Summarizes up to `cut`; false, with nothing changed or kept, when the summarizer lost the summary it had to merge. */
  async #compact(all: readonly Message[], cut: number): Promise<boolean> {
    const from = this.#state?.through ?? 0;
    const pinned = this.#run.pinned;
    const older = all.slice(from, cut).filter((message) => message !== pinned);
    const { model } = this.#summarizer();
    const window = this.#summarizerWindow();
    const { summary, usage } = await summarize({
      model,
      previous: this.#state?.summary,
      messages: older,
      budget: Math.floor(window * 0.5),
      // A fifth of the limit at most, so the summary and the turns after it fit together.
      maxTokens: Math.min(MAX_SUMMARY_TOKENS, Math.max(256, Math.floor(this.#limit / 5))),
      signal: this.#run.signal,
    });
    this.#run.addUsage(usage, this.#summarizerRef());
    if (summary === undefined) return false;
    this.#state = { summary, through: cut };
    await this.#save(all, cut, pinned && all.indexOf(pinned) < cut ? pinned : undefined);
    return true;
  }

  #summarizer(): { model: LanguageModel; ref: string } {
    const ref = this.#deps.config.model;
    if (ref === undefined || ref === this.#run.modelRef)
      return { model: this.#run.model, ref: this.#run.modelRef };
    if (!this.#deps.resolveModel)
      throw new HubosError(
        'MODEL_NOT_FOUND',
        `agent "${this.#deps.agent}": context.compaction.model "${ref}" needs a kernel to resolve it`,
      );
    return { model: this.#deps.resolveModel(ref), ref };
  }

  #summarizerRef(): string {
    return this.#deps.config.model ?? this.#run.modelRef;
  }

  /** The summarizer's own window (the run's when unknown): its requests are cut to half of it. */
  #summarizerWindow(): number {
    const ref = this.#summarizerRef();
    return limitsOf(ref, this.#deps.limits)?.contextWindow ?? this.#limit;
  }

  #owner(): string | undefined {
    const { sessionId, principal } = this.#run;
    // Sessions not kept have no history for a summary to stand for: nothing is kept for them.
    if (sessionId === undefined || !this.#deps.persist) return undefined;
    return principal ?? sessionOwner(sessionId);
  }

  /** The session's summary, placed in `all` by its anchor (a history loaded shorter has moved it). */
  async #load(all: readonly Message[]): Promise<State | undefined> {
    const { sessionId } = this.#run;
    const owner = this.#owner();
    if (sessionId === undefined || owner === undefined) return undefined;
    const stored = await summaryTable(this.#deps.store).get(summaryKey(this.#deps.agent, sessionId));
    // Another principal's summary is never read, even under the same session id.
    if (!stored || stored.owner !== owner) return undefined;
    // The history starts where it did when the summary was written: it ends where it did.
    const sameStart = stored.first === undefined || (all.length > 0 && anchorOf(all[0]!) === stored.first);
    const at = sameStart && all.length >= stored.through ? stored.through - 1 : -1;
    if (at >= 0 && anchorOf(all[at]!) === stored.anchor)
      return { summary: stored.summary, through: stored.through };
    // Else at the earliest message that reads as its last: a later one may read the same ("Done."),
    // and taking it would drop the messages between from both the summary and the request; an
    // earlier one only sends a few it covers again.
    for (let i = 0; i < Math.min(stored.through, all.length); i++)
      if (anchorOf(all[i]!) === stored.anchor) return { summary: stored.summary, through: i + 1 };
    // Its last message is before the history loaded: it stands for everything before it.
    return { summary: stored.summary, through: 0 };
  }

  async #save(all: readonly Message[], cut: number, pinned: Message | undefined): Promise<void> {
    const { sessionId } = this.#run;
    const owner = this.#owner();
    if (sessionId === undefined || owner === undefined || !this.#state) return;
    // The run's input stayed out of its summary; later runs have only the summary: it goes in, verbatim.
    const summary = pinned
      ? `The user asked (verbatim): ${pinned.content}\n\n${this.#state.summary}`
      : this.#state.summary;
    const record: ContextSummary = {
      agent: this.#deps.agent,
      sessionId,
      owner,
      summary,
      through: cut,
      anchor: anchorOf(all[cut - 1]!),
      first: anchorOf(all[0]!),
      model: this.#summarizerRef(),
      updatedAt: Date.now(),
    };
    await summaryTable(this.#deps.store).put(summaryKey(this.#deps.agent, sessionId), record);
  }
}

/** The estimate of a request: characters over `CHARS_PER_TOKEN`, with each message's framing (as the estimate counter's, summed once, tools' size kept per tool set: it runs every turn). */
function estimateOf(messages: readonly Message[], frame: RequestFrame): number {
  let chars = frame.system?.length ?? 0;
  let count = frame.system ? 1 : 0;
  for (const message of messages) {
    chars += message.content?.length ?? 0;
    if (message.role === 'assistant' && message.toolCalls)
      for (const call of message.toolCalls)
        chars += call.name.length + JSON.stringify(call.input ?? {}).length;
    count++;
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + count * MESSAGE_OVERHEAD + toolsEstimate(frame.tools);
}

const toolSizes = new WeakMap<readonly ToolDefinition[], number>();

/** The tool definitions' estimate, once per tool set (a run's set does not change). */
function toolsEstimate(tools: readonly ToolDefinition[]): number {
  if (tools.length === 0) return 0;
  let size = toolSizes.get(tools);
  if (size === undefined) {
    size = estimateTokens(JSON.stringify(tools));
    toolSizes.set(tools, size);
  }
  return size;
}
