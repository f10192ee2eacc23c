import { AsyncLocalStorage } from 'node:async_hooks';
import type { ToolContext } from '../../../core/index.ts';

/** One HubOS call of a server's tool, under way: the context whose `tc.sample` / `tc.elicit` answer the server. */
export interface CallInFlight {
  readonly tool: string;
  readonly tc: ToolContext;
  /** Sampling requests it made so far (its budget is per call). */
  samples: number;
  /** Questions (elicitation requests) it asked so far. */
  questions: number;
}

/**
 * The call whose work is running now. Over Streamable HTTP the server sends a request that belongs
 * to a call on that call's own response stream, and the transport reads that stream in the async
 * context the call started it in: the request's handler runs with this store set to the call.
 */
const currentCall = new AsyncLocalStorage<CallInFlight>();

export type CallOwner = { call: CallInFlight } | { refusal: string };

/**
 * The HubOS tool calls in flight on one connection, and which of them a server's request
 * (sampling, elicitation) belongs to. A request that came with a call (on its HTTP response
 * stream) belongs to it. One that came otherwise — over stdio, which has one stream for
 * everything, or on the HTTP server's standalone event stream — belongs to the only call in
 * flight; with none, or several (it would be a guess whose run answers), it is refused.
 */
export class CallsInFlight {
  readonly #calls = new Set<CallInFlight>();

  /** Runs `work` as the call `call`: it is in flight until `work` settles. */
  async run<T>(call: CallInFlight, work: () => Promise<T>): Promise<T> {
    this.#calls.add(call);
    try {
      return await currentCall.run(call, work);
    } finally {
      this.#calls.delete(call);
    }
  }

  get size(): number {
    return this.#calls.size;
  }

  /** The call a request arriving now belongs to, or why none can answer it. */
  owner(what: string): CallOwner {
    const tied = currentCall.getStore();
    if (tied && this.#calls.has(tied)) return { call: tied };
    if (tied && !this.#calls.has(tied))
      return { refusal: `the tool call this ${what} request came with ("${tied.tool}") has ended` };
    if (this.#calls.size === 1) return { call: [...this.#calls][0]! };
    if (this.#calls.size === 0)
      return {
        refusal: `no HubOS tool call is in flight on this connection: HubOS answers ${what} requests only while it calls one of the server's tools`,
      };
    return {
      refusal: `${this.#calls.size} tool calls are in flight on this connection and the request did not come with one of them (stdio, or the HTTP event stream): HubOS cannot tell whose run should answer it`,
    };
  }
}
