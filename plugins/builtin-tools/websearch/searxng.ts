import { joinUrl, type SearchBackend, toResults } from './backend.ts';
import { fetchJson } from './fetch-json.ts';

/** A SearXNG instance: GET {base}/search?q=...&format=json. It has no result count parameter, so results are cut here. */
export function searxngBackend(baseUrl: string, timeoutMs: number): SearchBackend {
  return {
    name: 'searxng',
    async search(query, maxResults, signal) {
      const url = joinUrl(baseUrl, 'search');
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const data = (await fetchJson(
        {
          backend: 'searxng',
          url,
          method: 'GET',
          headers: {},
          timeoutMs,
          // SearXNG answers 403 to format=json unless settings.yml lists it.
          statusHint: (status) =>
            status === 403
              ? "enable the json format in SearXNG's settings.yml (search.formats: [html, json])"
              : undefined,
        },
        signal,
      )) as { results?: unknown };
      return toResults(data?.results, 'content', maxResults);
    },
  };
}
