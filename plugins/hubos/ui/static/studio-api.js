// The studio's reads of the API: JSON with the stored key (app.js's request), errors as ApiError.

/** GET (or another method) of a JSON route under the API prefix; throws the server's coded error. */
export async function api(path, init = {}) {
  const response = await request(`${API}${path}`, {
    ...init,
    headers: {
      accept: 'application/json',
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
  });
  if (!response.ok) throw await responseError(response);
  return response.status === 204 ? undefined : response.json();
}

/** The same, answering undefined for a 404 (a run another key started, or a route this server lacks). */
export async function apiOrNothing(path, init) {
  try {
    return await api(path, init);
  } catch (error) {
    if (error.status === 404 || error.status === 405) return undefined;
    throw error;
  }
}

/** `CODE: message` of a failed request, said for the page. */
export const failure = (error) =>
  `${error.code ?? 'NETWORK_ERROR'}: ${error instanceof ApiError ? error.message : `could not reach the server: ${error.message}`}`;

export const runPath = (id) => `/runs/${encodeURIComponent(id)}`;

/**
 * Whether `id` from the address may be asked for: `.` and `..` (escaped or not) would climb out of
 * `/runs/` in the request's URL, and no run has them, nor an id past 200 characters.
 */
export const askable = (id) =>
  typeof id === 'string' && id.length > 0 && id.length <= 200 && !/^\.{1,2}$/.test(id);

/** What the page says for a run this key cannot see (the server answers 404, as for none). */
export const noRun = (id) => `No run "${id.length > 80 ? `${id.slice(0, 80)}…` : id}" for this key.`;
