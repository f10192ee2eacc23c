/**
 * A small MCP server written with the official SDK, used by the repo's agent.config.ts to show MCP
 * servers as tool sources: HubOS starts it over stdio and registers its tools as `text_count` and
 * `text_slugify`. Run it alone with `node examples/text-mcp-server.ts` (it speaks MCP on stdin/stdout).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'text', version: '1.0.0' });

server.registerTool(
  'count',
  {
    description: 'Counts the words, characters and lines of a text.',
    inputSchema: { text: z.string().describe('The text to count') },
    outputSchema: { words: z.number(), characters: z.number(), lines: z.number() },
  },
  ({ text }) => {
    const counts = {
      words: text.split(/\s+/).filter(Boolean).length,
      characters: [...text].length,
      lines: text === '' ? 0 : text.split('\n').length,
    };
    return { content: [{ type: 'text', text: JSON.stringify(counts) }], structuredContent: counts };
  },
);

server.registerTool(
  'slugify',
  {
    description: 'Turns a title into a URL slug ("Hello, World!" -> "hello-world").',
    inputSchema: { title: z.string().min(1).describe('The title') },
  },
  ({ title }) => {
    const slug = title
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '');
    if (slug === '')
      return {
        content: [{ type: 'text', text: `"${title}" has no letters or digits to keep` }],
        isError: true,
      };
    return { content: [{ type: 'text', text: slug }] };
  },
);

await server.connect(new StdioServerTransport());
