import { joinUrl, type SearchBackend, toResults } from './backend.ts';
import { fetchJson } from './fetch-json.ts';

export const BRAVE_BASE_URL = 'https://api.search.brave.com';

/** Brave Search API: GET /res/v1/web/search with the key in X-Subscription-Token. */
export function braveBackend(apiKey: string, baseUrl: string, timeoutMs: number): SearchBackend {
  return {
    name: 'brave',
    async search(query, maxResults, signal) {
      const url = joinUrl(baseUrl, 'res/v1/web/search');
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(maxResults));
      const data = (await fetchJson(
        {
          backend: 'brave',
          url,
          method: 'GET',
          headers: { 'x-subscription-token': apiKey },
          timeoutMs,
          authHint: 'check BRAVE_API_KEY or the config key websearch.braveApiKey',
        },
        signal,
      )) as { web?: { results?: unknown } };
      return toResults(data?.web?.results, 'description', maxResults);
    },
  };
}
