import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * The SDK's Streamable HTTP transport, knowing which messages it is still writing: a shutdown
 * waits for a finished call's answer to be written (through the event store, which takes a turn)
 * before it closes the streams.
 */
export class DrainableTransport extends WebStandardStreamableHTTPServerTransport {
  readonly #sending = new Set<Promise<void>>();

  override send(message: JSONRPCMessage, options?: { relatedRequestId?: RequestId }): Promise<void> {
    const sending = super.send(message, options);
    this.#sending.add(sending);
    const done = () => {
      this.#sending.delete(sending);
    };
    sending.then(done, done);
    return sending;
  }

  /**
   * Resolves once the messages of handlers that have finished are written (or failed): a
   * handler's answer is handed over a few microtasks after it settles, so this first lets the
   * current turn of the event loop end.
   */
  async flushed(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.allSettled([...this.#sending]);
  }
}
