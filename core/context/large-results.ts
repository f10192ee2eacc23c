import type { Message } from '../agent/messages.ts';
import type { ToolDefinition } from '../model/model.ts';
import { CHARS_PER_TOKEN, ESTIMATE_COUNTER, estimateTokens, tokenCounter } from '../model/tokens.ts';
import type { Store } from '../store/store.ts';
import { Registry } from '../tools/registry.ts';
import type { Tool } from '../tools/tool.ts';
import { keepResult } from './kept-results.ts';
import { READ_RESULT_TOOL, readResultTool } from './read-result-tool.ts';
import type { ToolResultsLimits } from './tool-results-config.ts';

/** The most of one result kept: beyond this a tool's output is cut even in the store. */
export const MAX_KEPT_CHARS = 20_000_000;

type ToolMessage = Extract<Message, { role: 'tool' }>;

/** What a run tells the keeper of itself. */
export interface KeeperRun {
  runId: string;
  agent: string;
  principal?: string;
}

/**
 * Keeps the tool results of one run that pass `limits.maxTokens` and gives the model their beginning
 * and a handle instead. Estimated first (a length); counted with the model's tokenizer only when
 * the estimate is within a factor of two of the limit.
 */
export class LargeResults {
  readonly #store: Store;
  readonly #limits: ToolResultsLimits;
  readonly #run: KeeperRun;
  readonly #modelRef: string;
  #offered = false;

  constructor(store: Store, limits: ToolResultsLimits, run: KeeperRun, modelRef: string) {
    this.#store = store;
    this.#limits = limits;
    this.#run = run;
    this.#modelRef = modelRef;
  }

  /**
   * The step's tool messages with those too large kept and cut. `offer` is called at the first
   * result kept, for the run to give its model the read tool from then on.
   */
  async shorten(messages: Message[], offer: () => void): Promise<Message[]> {
    let out: Message[] | undefined;
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i]!;
      if (message.role !== 'tool' || message.name === READ_RESULT_TOOL) continue;
      if (!(await this.#tooLarge(message.content))) continue;
      out ??= [...messages];
      out[i] = await this.#keep(message);
      if (!this.#offered) {
        this.#offered = true;
        offer();
      }
    }
    return out ?? messages;
  }

  async #tooLarge(text: string): Promise<boolean> {
    const { maxTokens } = this.#limits;
    const estimate = estimateTokens(text);
    if (estimate <= maxTokens / 2) return false;
    if (estimate > maxTokens * 2) return true;
    // A tokenizer that cannot load (a trimmed install) leaves the estimate: the run goes on.
    const counter = await tokenCounter(this.#modelRef).catch(() => ESTIMATE_COUNTER);
    return counter.text(text) > maxTokens;
  }

  async #keep(message: ToolMessage): Promise<ToolMessage> {
    const whole = message.content;
    const text = whole.length > MAX_KEPT_CHARS ? whole.slice(0, MAX_KEPT_CHARS) : whole;
    const handle = await keepResult(this.#store, {
      ...(this.#run.principal !== undefined ? { principal: this.#run.principal } : {}),
      runId: this.#run.runId,
      agent: this.#run.agent,
      tool: message.name ?? '',
      callId: message.toolCallId,
      text,
    });
    // The estimate's ratio, so the head stays within headTokens.
    const head = headOf(text, Math.floor(this.#limits.headTokens * CHARS_PER_TOKEN));
    const { parts: _parts, ...rest } = message;
    return { ...rest, content: `${head}\n\n${notice(whole, text, head, handle)}` };
  }
}

/** The first `chars` characters, ending at a line's end when one is in the last fifth. */
export function headOf(text: string, chars: number): string {
  const cut = text.slice(0, chars);
  const newline = cut.lastIndexOf('\n');
  return newline > chars * 0.8 ? cut.slice(0, newline) : cut;
}

/** What the model reads below the head: how large the whole is, its handle, and how to read more. */
function notice(whole: string, kept: string, head: string, handle: string): string {
  const lines = countLines(kept);
  const headLines = countLines(head);
  // The next line is the one after the head's last, unless the head stopped inside it.
  const nextLine = kept[head.length] === '\n' ? headLines + 1 : headLines;
  const handleJson = JSON.stringify(handle);
  const cut =
    kept.length < whole.length
      ? ` Only its first ${kept.length} characters were kept (of ${whole.length}).`
      : '';
  return (
    `${NOTICE}it is ${whole.length} characters (${lines} lines, about ${estimateTokens(whole)} tokens), too large to show whole; ` +
    `above are characters 0-${head.length} (lines 1-${headLines}). It is kept as ${handleJson}.${cut} ` +
    `Read more with the ${READ_RESULT_TOOL} tool: {"handle": ${handleJson}, "offset": ${head.length}} for the next characters, ` +
    `{"handle": ${handleJson}, "line": ${nextLine}} for the next lines, or {"handle": ${handleJson}, "search": "some text"} to find the lines that hold a text.]`
  );
}

function countLines(text: string): number {
  let lines = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
}

/** The read tool, in a registry of its own: it runs without being one of the kernel's tools. */
export const RUN_TOOLS = new Registry();
RUN_TOOLS.register(readResultTool);

/** What a run's model is offered: its tools, in the shapes the loop uses. */
export interface OfferedTools {
  definitions: ToolDefinition[];
  map: ReadonlyMap<string, Tool>;
}

/** The run's tools with the read tool added (unchanged when it has it already). */
export function withReadResult(tools: OfferedTools): OfferedTools {
  if (tools.map.has(READ_RESULT_TOOL)) return tools;
  const tool = RUN_TOOLS.get(READ_RESULT_TOOL);
  const { name, description, inputSchema } = tool;
  return {
    definitions: [...tools.definitions, { name, description, inputSchema }],
    map: new Map([...tools.map, [READ_RESULT_TOOL, tool]]),
  };
}

/** Where a cut result's notice starts: a run whose history holds one is offered the read tool. */
const NOTICE = '[Result cut: ';
/** How far from its end a cut message's notice starts, at most (the notice and its three handles). */
const NOTICE_REACH = 1_500;

/** Whether `messages` hold a cut result (looked for near each tool message's end only). */
export function holdsCutResult(messages: readonly Message[]): boolean {
  return messages.some(
    (message) =>
      message.role === 'tool' &&
      message.content.includes(NOTICE, Math.max(0, message.content.length - NOTICE_REACH)),
  );
}
