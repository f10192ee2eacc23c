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
