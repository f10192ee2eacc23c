import { HubosError } from '../../../core/index.ts';
import type { SearchBackend } from './backend.ts';
import { BRAVE_BASE_URL, braveBackend } from './brave.ts';
import { DEFAULT_TIMEOUT_MS, type WebsearchBackendName, type WebsearchOptions } from './options.ts';
import { searxngBackend } from './searxng.ts';
import { TAVILY_BASE_URL, tavilyBackend } from './tavily.ts';

type Env = Record<string, string | undefined>;

const HOW_TO_CONFIGURE =
  'set SEARXNG_URL (a SearXNG instance with the json format enabled), BRAVE_API_KEY (Brave Search API) ' +
  'or TAVILY_API_KEY (Tavily), or the config key websearch { backend, searxngUrl, braveApiKey, tavilyApiKey }';

/**
 * The backend to call: the one named in options, else the first configured in options, else the
 * first found in the environment (SearXNG, Brave, Tavily in that order). Read per call, so a key
 * set after startup is picked up.
 */
export function chooseBackend(options: WebsearchOptions, env: Env = process.env): SearchBackend {
  const fromEnv = (name: string) => env[name] || undefined;
  const settings = {
    searxng: options.searxngUrl ?? fromEnv('SEARXNG_URL'),
    brave: options.braveApiKey ?? fromEnv('BRAVE_API_KEY') ?? fromEnv('BRAVE_SEARCH_API_KEY'),
    tavily: options.tavilyApiKey ?? fromEnv('TAVILY_API_KEY'),
  };
  const order: WebsearchBackendName[] = ['searxng', 'brave', 'tavily'];
  const configured = {
    searxng: options.searxngUrl,
    brave: options.braveApiKey,
    tavily: options.tavilyApiKey,
  };
  const name =
    options.backend ?? order.find((n) => configured[n] !== undefined) ?? order.find((n) => settings[n]);
  if (!name) throw new HubosError('TOOL_FAILED', `no web search backend is configured: ${HOW_TO_CONFIGURE}`);

  const setting = settings[name];
  if (!setting) {
    const missing = {
      searxng: 'no URL: set SEARXNG_URL or websearch.searxngUrl',
      brave: 'no API key: set BRAVE_API_KEY or websearch.braveApiKey',
      tavily: 'no API key: set TAVILY_API_KEY or websearch.tavilyApiKey',
    }[name];
    throw new HubosError('TOOL_FAILED', `websearch.backend is "${name}" but it has ${missing}`);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (name === 'searxng') return searxngBackend(options.baseUrl ?? setting, timeoutMs);
  if (name === 'brave') return braveBackend(setting, options.baseUrl ?? BRAVE_BASE_URL, timeoutMs);
  return tavilyBackend(setting, options.baseUrl ?? TAVILY_BASE_URL, timeoutMs);
}
