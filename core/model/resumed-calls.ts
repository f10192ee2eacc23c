import type { ToolCall } from '../agent/messages.ts';
import type { ModelChunk } from './model.ts';

/** A call whose start was passed on while its end never came (its attempt failed). */
interface OpenCall {
  id: string;
  name: string;
  /** Its arguments' text as passed on so far. */
  args: string;
}

/** A call of the current attempt that goes on one passed on before. */
interface Resumed {
  open: OpenCall;
  /** The new arguments held back while they repeat `open.args`. */
  held: string;
  /** Repeating what was passed on; past it (passed on); or other than it (not streamed). */
  state: 'matching' | 'through' | 'diverged';
}

/**
 * The live tool calls (`tool-call-start`, `tool-call-delta`) of an answer retried after its stream
 * dropped: a call whose start was passed on is not started twice. The retry's first call of the
 * same name goes on under the id already passed on, its arguments held back while they repeat
 * those passed on, and its whole `tool-call` carries that id too. Arguments that differ cannot be
 * taken back: the rest of them is not streamed (the whole call, passed on at its end, is right).
 */
export class ResumedCalls {
  /** Passed on and not ended, oldest first. */
  readonly #open: OpenCall[] = [];
  /** The current attempt's calls, by the id it gives them. */
  readonly #current = new Map<string, OpenCall | Resumed>();

  /** A new attempt begins: calls left open before wait to be gone on with. */
  restart(): void {
    this.#current.clear();
  }

  /** What to pass on of a call's start: nothing when it goes on one passed on before. */
  start(id: string, name: string): ModelChunk | undefined {
    const resumed = this.#resume(id, name);
    if (resumed) return undefined;
    const open = { id, name, args: '' };
    this.#open.push(open);
    this.#current.set(id, open);
    return { type: 'tool-call-start', id, name };
  }

  /** What to pass on of a call's arguments. */
  delta(id: string, delta: string): ModelChunk | undefined {
    const call = this.#current.get(id);
    if (!call) return { type: 'tool-call-delta', id, delta };
    if (!('open' in call)) {
      call.args += delta;
      return { type: 'tool-call-delta', id, delta };
    }
    if (call.state === 'diverged') return undefined;
    let out = delta;
    if (call.state === 'matching') {
      call.held += delta;
      const sent = call.open.args;
      if (call.held.length <= sent.length && sent.startsWith(call.held)) return undefined;
      call.state = call.held.startsWith(sent) ? 'through' : 'diverged';
      if (call.state === 'diverged') return undefined;
      out = call.held.slice(sent.length);
    }
    call.open.args += out;
    return { type: 'tool-call-delta', id: call.open.id, delta: out };
  }

  /** The whole call, under the id its start was passed on with. */
  end(call: ToolCall): ModelChunk {
    const current = this.#current.get(call.id) ?? this.#resume(call.id, call.name);
    const open = current && 'open' in current ? current.open : current;
    const at = open ? this.#open.indexOf(open) : -1;
    if (at !== -1) this.#open.splice(at, 1);
    return { type: 'tool-call', ...call, id: open?.id ?? call.id };
  }

  /** The current attempt's call `id` taken as the oldest open one of the same name, if any. */
  #resume(id: string, name: string): Resumed | undefined {
    const taken = new Set([...this.#current.values()].map((call) => ('open' in call ? call.open : call)));
    const open = this.#open.find((call) => call.name === name && !taken.has(call));
    if (!open) return undefined;
    const resumed: Resumed = { open, held: '', state: 'matching' };
    this.#current.set(id, resumed);
    return resumed;
  }
}
