import { errorMessage, type Logger } from '../../../core/index.ts';
import type { McpConfig } from '../config.ts';
import { AuthorizationError } from './authorization-error.ts';
import { type LoopbackCallback, listenForCallback } from './loopback.ts';
import { formatDelay } from './timeouts.ts';

export const DEFAULT_AUTHORIZATION_TIMEOUT_MS = 5 * 60_000;

export interface PersonAuthorizationOptions {
  server: string;
  logger: Logger;
  /** How long a person has to finish. */
  timeoutMs: number;
  onAuthorize?: McpConfig['onAuthorize'];
}

interface Pending {
  url: string;
  expiresAt: number;
  callback: LoopbackCallback;
}

/**
 * The authorization a person is asked for (authorization code grant): the URL is logged and handed
 * to `onAuthorize`, a loopback listener waits for the browser to come back with the code, and the
 * code is exchanged once however many wait for it. A newer authorization replaces the one pending.
 */
export class PersonAuthorization {
  readonly #options: PersonAuthorizationOptions;
  #pending: Pending | undefined;
  #completing: Promise<void> | undefined;

  constructor(options: PersonAuthorizationOptions) {
    this.#options = options;
  }

  /** Starts listening on 127.0.0.1:`port` for the answer to `url`, and tells who opens it. Throws PortInUseError. */
  async ask(url: URL, port: number): Promise<void> {
    const { server, logger, onAuthorize, timeoutMs } = this.#options;
    this.#pending?.callback.close('a newer authorization replaced it');
    this.#pending = undefined;
    const callback = await listenForCallback(port, url.searchParams.get('state') ?? '', server);
    const pending = { url: url.href, expiresAt: Date.now() + timeoutMs, callback };
    this.#pending = pending;
    logger.warn(
      `MCP server "${server}" needs authorization: open ${pending.url} in a browser to let HubOS in (waiting ${formatDelay(timeoutMs)})`,
    );
    if (onAuthorize) {
      const request = { server, url: pending.url, expiresAt: new Date(pending.expiresAt).toISOString() };
      void Promise.resolve()
        .then(() => onAuthorize(request))
        .catch((error) => logger.warn(`MCP server "${server}": onAuthorize failed: ${errorMessage(error)}`));
    }
  }

  /** The authorization waited for now, if any: its URL, and until when (ISO time). */
  get pending(): { url: string; expiresAt: string } | undefined {
    const pending = this.#pending;
    return pending && { url: pending.url, expiresAt: new Date(pending.expiresAt).toISOString() };
  }

  /** Waits for the code and `exchange`s it (once for every waiter); `signal` ends this waiter's wait only. */
  async authorize(exchange: (code: string) => Promise<void>, signal: AbortSignal): Promise<void> {
    this.#completing ??= this.#complete(exchange).finally(() => {
      this.#completing = undefined;
    });
    const completing = this.#completing;
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason ?? new Error('aborted'));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      completing.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /** Stops waiting (the connection is closing). */
  close(): void {
    this.#pending?.callback.close('HubOS stopped waiting (the MCP server connection closed)');
    this.#pending = undefined;
  }

  async #complete(exchange: (code: string) => Promise<void>): Promise<void> {
    for (;;) {
      const pending = this.#pending;
      if (!pending) throw new AuthorizationError('no authorization is under way', true);
      let code: string;
      try {
        code = await waitUntil(pending.callback.code, pending.expiresAt, () => {
          const waited = formatDelay(this.#options.timeoutMs);
          return new AuthorizationError(
            `nobody completed it within ${waited} (auth.authorizationTimeoutMs)`,
            true,
          );
        });
      } catch (error) {
        // Replaced by a newer authorization (a second 401 meanwhile): wait for that one.
        if (this.#pending !== pending && this.#pending) continue;
        if (this.#pending === pending) this.close();
        throw error instanceof AuthorizationError ? error : new AuthorizationError(errorMessage(error), true);
      }
      if (this.#pending === pending) this.#pending = undefined;
      await exchange(code);
      return;
    }
  }
}

/** `promise`, or `onTimeout()`'s error once `deadline` (epoch ms) passed; the timer never outlives the wait. */
async function waitUntil<T>(promise: Promise<T>, deadline: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(onTimeout()), Math.max(0, deadline - Date.now()));
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
