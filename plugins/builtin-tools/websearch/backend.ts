import { HubosError } from '../../../core/index.ts';
import { plainText } from './text.ts';

/** One search result, as the `websearch` tool returns it (`{ results: WebsearchHit[] }`). */
export interface WebsearchHit {
  title: string;
  url: string;
  snippet: string;
}

/** One search API behind the common result shape. */
export interface SearchBackend {
  readonly name: string;
  search(query: string, maxResults: number, signal: AbortSignal): Promise<WebsearchHit[]>;
}

/** Maps a backend's result list (`{ title, url, <snippet field> }[]`) to SearchResults, skipping entries without a URL. */
export function toResults(items: unknown, snippetField: string, maxResults: number): WebsearchHit[] {
  if (!Array.isArray(items)) return [];
  const results: WebsearchHit[] = [];
  for (const item of items as Record<string, unknown>[]) {
    if (typeof item?.url !== 'string' || item.url === '') continue;
    results.push({ title: plainText(item.title), url: item.url, snippet: plainText(item[snippetField]) });
    if (results.length >= maxResults) break;
  }
  return results;
}

/** `path` under `base`, keeping any path prefix the base has (a proxy's `/brave/`, SearXNG's `/searx/`). */
export function joinUrl(base: string, path: string): URL {
  try {
    return new URL(path, base.endsWith('/') ? base : `${base}/`);
  } catch {
    throw new HubosError('TOOL_FAILED', `the websearch backend URL "${base}" is not a valid absolute URL`);
  }
}
