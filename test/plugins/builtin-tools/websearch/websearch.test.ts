import type { ToolResult } from 'hubos';
import { invokeTool } from 'hubos/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  WEBSEARCH_CONFIG_SCHEMA,
  type WebsearchHit,
  type WebsearchOptions,
  websearchTool,
} from '../../../../plugins/builtin-tools/websearch/index.ts';
import { type LocalServer, localServer, sendJson } from '../http/local-server.ts';

const many = (n: number, snippetField: string) =>
  Array.from({ length: n }, (_, i) => ({
    title: `Result ${i}`,
    url: `https://example.com/${i}`,
    [snippetField]: `About ${i}`,
  }));

let server: LocalServer;
// Each route speaks one backend's real API; /fail/* answer with the backend's error format.
beforeAll(async () => {
  server = await localServer(async (req, res) => {
    const url = new URL(req.path, 'http://x');
    if (url.pathname === '/searx/search' || (url.pathname === '/search' && req.method === 'GET')) {
      return sendJson(res, { query: url.searchParams.get('q'), results: many(12, 'content') });
    }
    if (url.pathname === '/res/v1/web/search') {
      const count = Number(url.searchParams.get('count'));
      const results = many(count, 'description');
      results[0] = {
        title: '<strong>Hubos</strong> docs',
        url: 'https://hubos.dev/',
        description: 'The <strong>agent</strong> framework &amp; its tools &#x27;n&#39; more',
      };
      return sendJson(res, { type: 'search', web: { type: 'search', results } });
    }
    if (url.pathname === '/search' && req.method === 'POST') {
      const body = JSON.parse(req.body) as { max_results: number };
      return sendJson(res, { query: 'q', response_time: 0.5, results: many(body.max_results, 'content') });
    }
    if (url.pathname === '/fail/res/v1/web/search') {
      const error = {
        id: 'x',
        status: 422,
        code: 'SUBSCRIPTION_TOKEN_INVALID',
        detail: 'The token is invalid.',
      };
      return sendJson(res, { type: 'ErrorResponse', error }, 422);
    }
    if (url.pathname === '/fail/search' && req.method === 'POST') {
      return sendJson(res, { detail: { error: 'Unauthorized: missing or invalid API key.' } }, 401);
    }
    if (url.pathname === '/fail/search') {
      res.writeHead(403, { 'content-type': 'text/html' });
      return res.end('<html><body><h1>403 Forbidden</h1></body></html>');
    }
    if (url.pathname === '/slow/search') return; // Never answers.
    res.writeHead(404).end();
  });
});
afterAll(() => server.close());

// The suite must not depend on keys in the developer's environment.
beforeEach(() => {
  for (const name of ['SEARXNG_URL', 'BRAVE_API_KEY', 'BRAVE_SEARCH_API_KEY', 'TAVILY_API_KEY']) {
    vi.stubEnv(name, '');
  }
});
afterEach(() => vi.unstubAllEnvs());

async function search(options: WebsearchOptions, input: Record<string, unknown>): Promise<ToolResult> {
  return invokeTool(websearchTool(options), input);
}

function results(result: ToolResult): WebsearchHit[] {
  if (!result.ok) expect.fail(`${result.error.code}: ${result.error.message}`);
  return (result.output as { results: WebsearchHit[] }).results;
}

function failure(result: ToolResult): string {
  if (result.ok) expect.fail(`expected a failure, got ${JSON.stringify(result.output)}`);
  return result.error.message;
}

describe('websearch', () => {
  it('is one tool needing net:search', () => {
    const tool = websearchTool();
    expect(tool.name).toBe('websearch');
    expect(tool.permissions).toEqual(['net:search']);
    expect(WEBSEARCH_CONFIG_SCHEMA.additionalProperties).toBe(false);
  });

  it('SearXNG: GET {url}/search?q=&format=json, results cut to max_results', async () => {
    const found = results(
      await search({ searxngUrl: `${server.url}/searx/` }, { query: 'hubos agents', max_results: 3 }),
    );
    expect(found).toEqual([
      { title: 'Result 0', url: 'https://example.com/0', snippet: 'About 0' },
      { title: 'Result 1', url: 'https://example.com/1', snippet: 'About 1' },
      { title: 'Result 2', url: 'https://example.com/2', snippet: 'About 2' },
    ]);
    const request = server.seen.at(-1)!;
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/searx/search?q=hubos+agents&format=json');
  });

  it('returns 5 results unless asked otherwise', async () => {
    expect(results(await search({ searxngUrl: server.url }, { query: 'x' }))).toHaveLength(5);
  });

  it('Brave: GET /res/v1/web/search with X-Subscription-Token, HTML stripped from snippets', async () => {
    const options = { backend: 'brave', braveApiKey: 'brave-key', baseUrl: server.url } as const;
    const found = results(await search(options, { query: 'hubos', max_results: 4 }));
    expect(found).toHaveLength(4);
    expect(found[0]).toEqual({
      title: 'Hubos docs',
      url: 'https://hubos.dev/',
      snippet: "The agent framework & its tools 'n' more",
    });
    expect(found[1]).toEqual({ title: 'Result 1', url: 'https://example.com/1', snippet: 'About 1' });
    const request = server.seen.at(-1)!;
    expect(request.path).toBe('/res/v1/web/search?q=hubos&count=4');
    expect(request.headers['x-subscription-token']).toBe('brave-key');
    expect(request.headers.accept).toBe('application/json');
  });

  it('Tavily: POST /search with the key as a Bearer token and api_key', async () => {
    const options = { tavilyApiKey: 'tvly-key', baseUrl: server.url };
    const found = results(await search(options, { query: 'hubos', max_results: 2 }));
    expect(found).toEqual([
      { title: 'Result 0', url: 'https://example.com/0', snippet: 'About 0' },
      { title: 'Result 1', url: 'https://example.com/1', snippet: 'About 1' },
    ]);
    const request = server.seen.at(-1)!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/search');
    expect(request.headers.authorization).toBe('Bearer tvly-key');
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body)).toEqual({ query: 'hubos', max_results: 2, api_key: 'tvly-key' });
  });

  it('falls back to the environment: SEARXNG_URL, then BRAVE_API_KEY / BRAVE_SEARCH_API_KEY, then TAVILY_API_KEY', async () => {
    vi.stubEnv('TAVILY_API_KEY', 'env-tavily');
    await search({ baseUrl: server.url }, { query: 'a' });
    expect(server.seen.at(-1)!.headers.authorization).toBe('Bearer env-tavily');

    vi.stubEnv('BRAVE_SEARCH_API_KEY', 'env-brave');
    await search({ baseUrl: server.url }, { query: 'a' });
    expect(server.seen.at(-1)!.headers['x-subscription-token']).toBe('env-brave');

    vi.stubEnv('SEARXNG_URL', `${server.url}/searx`);
    await search({}, { query: 'a' });
    expect(server.seen.at(-1)!.path).toBe('/searx/search?q=a&format=json');
  });

  it('prefers a backend set in options over one in the environment', async () => {
    vi.stubEnv('SEARXNG_URL', 'http://unused.invalid');
    await search({ braveApiKey: 'opt-brave', baseUrl: server.url }, { query: 'a' });
    expect(server.seen.at(-1)!.headers['x-subscription-token']).toBe('opt-brave');
  });

  it('surfaces a backend HTTP error with its status and message', async () => {
    const brave = failure(
      await search({ braveApiKey: 'bad', baseUrl: `${server.url}/fail` }, { query: 'a' }),
    );
    expect(brave).toMatch(/websearch \(brave\) failed with HTTP 422: The token is invalid\./);

    const tavily = failure(
      await search({ tavilyApiKey: 'bad', baseUrl: `${server.url}/fail` }, { query: 'a' }),
    );
    expect(tavily).toMatch(
      /websearch \(tavily\) failed with HTTP 401: Unauthorized: missing or invalid API key\./,
    );
    expect(tavily).toMatch(/check TAVILY_API_KEY or the config key websearch\.tavilyApiKey/);

    const searxng = failure(await search({ searxngUrl: `${server.url}/fail` }, { query: 'a' }));
    expect(searxng).toMatch(
      /websearch \(searxng\) failed with HTTP 403: 403 Forbidden; enable the json format/,
    );
  });

  it('gives up after timeoutMs', async () => {
    const message = failure(
      await search({ searxngUrl: `${server.url}/slow`, timeoutMs: 100 }, { query: 'a' }),
    );
    expect(message).toMatch(/websearch \(searxng\) did not answer within 100 ms/);
  });

  it('says how to configure a backend when none is', async () => {
    const message = failure(await search({}, { query: 'a' }));
    expect(message).toMatch(
      /no web search backend is configured: set SEARXNG_URL .*BRAVE_API_KEY.*TAVILY_API_KEY/,
    );
    expect(message).toMatch(/config key websearch/);
  });

  it('says what is missing when the named backend has no key', async () => {
    const message = failure(await search({ backend: 'brave' }, { query: 'a' }));
    expect(message).toMatch(/websearch\.backend is "brave" but it has no API key: set BRAVE_API_KEY/);
  });

  it('validates max_results', async () => {
    const result = await search({ searxngUrl: server.url }, { query: 'a', max_results: 21 });
    expect(result.ok ? undefined : result.error.code).toBe('TOOL_INPUT_INVALID');
  });
});
