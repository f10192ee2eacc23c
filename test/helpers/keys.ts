import type { Kernel } from '../../core/index.ts';
import type { HubOSOptions } from '../../plugins/hubos/hubos.ts';
import { HubOS } from '../../plugins/hubos/hubos.ts';

/** Two API keys and an admin key, as the per-key tests serve them: each key its own principal. */
export const KEY_A = 'key-a-0123456789abcdef';
export const KEY_B = 'key-b-0123456789abcdef';
export const KEY_OPS = 'key-ops-0123456789abcdef';

/** `server.apiKeys` with A, B and `ops` (admin). */
export const API_KEYS = [KEY_A, KEY_B, { key: KEY_OPS, id: 'ops', admin: true }];

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
type Json = any;

/** A fetch as the caller with `key` (none: keyless), a JSON body when given: `{ status, json }`. */
export function callAs(key?: string) {
  return async (url: string, method = 'GET', body?: unknown): Promise<{ status: number; json: Json }> => {
    const response = await fetch(url, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as Json };
  };
}

/** Alice's and Bob's keys, each its own principal (`alice`, `bob`). */
export const ALICE_KEY = 'alice-key-0123456789abcdef';
export const BOB_KEY = 'bob-key-0123456789abcdefgh';

/**
 * A HubOS on `kernel` serving `agents` (default: `helper`) on a free port, with Alice's and Bob's
 * keys (and `extraKeys`), no rate limit: the per-key route tests' server. Close it before the kernel.
 */
export async function keyedHubOS(
  kernel: Kernel,
  options: { agents?: string[]; extraKeys?: HubOSOptions['apiKeys'] } = {},
): Promise<{ hubos: HubOS; url: string }> {
  const hubos = new HubOS({
    kernel,
    name: 'test',
    port: 0,
    rateLimit: false,
    apiKeys: [{ key: ALICE_KEY, id: 'alice' }, { key: BOB_KEY, id: 'bob' }, ...(options.extraKeys ?? [])],
  });
  for (const agent of options.agents ?? ['helper']) hubos.registerAgent(agent, kernel.agent(agent));
  const url = await hubos.serve();
  return { hubos, url };
}
