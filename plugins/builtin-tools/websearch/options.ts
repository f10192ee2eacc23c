export type WebsearchBackendName = 'searxng' | 'brave' | 'tavily';

export interface WebsearchOptions {
  /** Which backend to use; default: the first one configured (options, then environment). */
  backend?: WebsearchBackendName;
  /** A SearXNG instance with the `json` format enabled; defaults to SEARXNG_URL. */
  searxngUrl?: string;
  /** Brave Search API key; defaults to BRAVE_API_KEY, then BRAVE_SEARCH_API_KEY. */
  braveApiKey?: string;
  /** Tavily API key; defaults to TAVILY_API_KEY. */
  tavilyApiKey?: string;
  /** Replaces the backend's API base URL (a proxy, or a local server in tests). */
  baseUrl?: string;
  /** Longest wait for the backend's answer (ms). Default 15 s. */
  timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 15_000;

/** The `websearch` config key. */
export const WEBSEARCH_CONFIG_SCHEMA = {
  type: 'object',
  description: 'The built-in websearch tool and the search backend it calls.',
  properties: {
    backend: { enum: ['searxng', 'brave', 'tavily'], description: 'Default: the first one configured.' },
    searxngUrl: { type: 'string', minLength: 1, description: 'SearXNG base URL; defaults to SEARXNG_URL.' },
    braveApiKey: {
      type: 'string',
      minLength: 1,
      description: 'Brave Search API key; defaults to BRAVE_API_KEY or BRAVE_SEARCH_API_KEY.',
    },
    tavilyApiKey: {
      type: 'string',
      minLength: 1,
      description: 'Tavily API key; defaults to TAVILY_API_KEY.',
    },
    baseUrl: { type: 'string', minLength: 1, description: "Replaces the backend's API base URL." },
    timeoutMs: { type: 'integer', minimum: 1, description: 'Backend timeout in ms (default 15000).' },
  },
  additionalProperties: false,
} as const;
