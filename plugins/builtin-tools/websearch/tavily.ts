import { joinUrl, type SearchBackend, toResults } from './backend.ts';
import { fetchJson } from './fetch-json.ts';

export const TAVILY_BASE_URL = 'https://api.tavily.com';

/** Tavily: POST /search with a JSON body; the key goes as a Bearer token and (for older API versions) as api_key. */
export function tavilyBackend(apiKey: string, baseUrl: string, timeoutMs: number): SearchBackend {
  return {
    name: 'tavily',
    async search(query, maxResults, signal) {
      const data = (await fetchJson(
        {
          backend: 'tavily',
          url: joinUrl(baseUrl, 'search'),
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}` },
          body: { query, max_results: maxResults, api_key: apiKey },
          timeoutMs,
          authHint: 'check TAVILY_API_KEY or the config key websearch.tavilyApiKey',
        },
        signal,
      )) as { results?: unknown };
      return toResults(data?.results, 'content', maxResults);
    },
  };
}
