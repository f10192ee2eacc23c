/**
 * MCP tool calls: an agent's tool call to a stdio MCP server through HubOS (registry validation,
 * the mcp plugin's adapter, result conversion) against the same call made directly with the
 * official SDK client to a second copy of the same server, in the same run. Prints calls per second.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { executeTool } from '../core/index.ts';
import mcp from '../plugins/mcp/index.ts';
import { bootKernel } from '../testing/index.ts';
import { opsPerSecond, report } from './measure.ts';

const server = fileURLToPath(new URL('../examples/text-mcp-server.ts', import.meta.url));
const input = { title: 'Hello, World!' };

const direct = new Client({ name: 'bench', version: '1.0.0' });
await direct.connect(new StdioClientTransport({ command: process.execPath, args: [server] }));
const baseline = await opsPerSecond(() => direct.callTool({ name: 'slugify', arguments: input }), 1_500);
await direct.close();

const kernel = await bootKernel({
  plugins: [mcp({ servers: { text: { command: process.execPath, args: [server] } } })],
});
const env = {
  signal: new AbortController().signal,
  agentId: 'bench',
  sandbox: kernel.sandbox,
  store: kernel.store,
};
const subject = await opsPerSecond(async () => {
  const result = await executeTool(kernel.registry, 'text_slugify', input, env);
  if (!result.ok) throw new Error(result.error.message);
}, 1_500);
report(
  'MCP tool call through HubOS (stdio)',
  subject,
  baseline,
  'the SDK client calling the server directly',
);
await kernel.close();
