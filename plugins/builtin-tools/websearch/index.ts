import { defineTool, type Tool } from '../../../core/index.ts';
import type { WebsearchHit } from './backend.ts';
import { chooseBackend } from './choose-backend.ts';
import type { WebsearchOptions } from './options.ts';

export type { WebsearchHit } from './backend.ts';
export { WEBSEARCH_CONFIG_SCHEMA, type WebsearchBackendName, type WebsearchOptions } from './options.ts';

const MAX_RESULTS = 20;

/** The `websearch` tool: one result shape over SearXNG, Brave Search or Tavily. */
export function websearchTool(options: WebsearchOptions = {}): Tool {
  return defineTool({
    name: 'websearch',
    description:
      'Search the web. Returns { results: [{ title, url, snippet }] }; fetch a result with http_get to read it.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: 'What to search for.' },
        max_results: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_RESULTS,
          default: 5,
          description: `How many results to return (1-${MAX_RESULTS}).`,
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    permissions: ['net:search'],
    async handler({ signal }, { input }): Promise<{ results: WebsearchHit[] }> {
      const backend = chooseBackend(options);
      return { results: await backend.search(input.query, input.max_results, signal) };
    },
  });
}
