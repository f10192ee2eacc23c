import type { Env, MiddlewareHandler, Next } from 'hono';

/**
 * Middleware that only pass a request on or refuse it (nothing after `next`), run as one: Hono
 * gives each `app.use` its own async frame, held for as long as the request runs (a whole agent
 * run on the run route). A refusal is answered as before: the error reaches the app's error
 * handler, and nothing after it runs.
 */
export function inSequence<E extends Env>(handlers: MiddlewareHandler<E>[]): MiddlewareHandler<E> {
  if (handlers.length === 1) return handlers[0]!;
  return (c, next) => {
    const at = (i: number): ReturnType<MiddlewareHandler<E>> =>
      i === handlers.length ? next() : handlers[i]!(c, (() => at(i + 1)) as Next);
    return at(0);
  };
}
