/**
 * An MCP server (the official SDK's McpServer) whose tools ask things of the client: sampling,
 * elicitation, roots. Imported by the tests for Streamable HTTP (`startRequestsServer`); run as a
 * script it serves the same tools over stdio. Each tool reports what the client answered (or the
 * error it answered with), so the tests read it from the tool's result.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export const REQUESTS_SERVER = fileURLToPath(import.meta.url);

const text = (value: unknown) => ({
  content: [{ type: 'text' as const, text: typeof value === 'string' ? value : JSON.stringify(value) }],
});

const outcome = <T>(work: Promise<T>): Promise<T | { error: string }> =>
  work.catch((error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }));

/** Calls of `pair` waiting for their partner (one process: shared by every session). */
let waiting: (() => void)[] = [];

function requestsServer(): McpServer {
  const server = new McpServer({ name: 'requests', version: '1.0.0' });
  let startup: unknown = 'none';
  // Right after initialize, before any tool call: nobody's call to answer it for.
  server.server.oninitialized = () => {
    const caps = server.server.getClientCapabilities();
    if (!caps?.sampling) return;
    startup = 'pending';
    void outcome(
      server.server.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
        maxTokens: 5,
      }),
    ).then((result) => {
      startup = result;
    });
  };
  server.registerTool(
    'summarize',
    { description: 'Asks the client model to summarize a text.', inputSchema: { text: z.string() } },
    async ({ text: input }, extra) => {
      const result = await outcome(
        extra.sendRequest(
          {
            method: 'sampling/createMessage',
            params: {
              systemPrompt: 'You summarize.',
              messages: [{ role: 'user', content: { type: 'text', text: `Summarize: ${input}` } }],
              maxTokens: 50_000,
              temperature: 0.2,
            },
          },
          CreateMessageResultSchema,
        ),
      );
      return text(result);
    },
  );
  server.registerTool(
    'sample_many',
    { description: 'Samples `count` times in a row.', inputSchema: { count: z.number().int() } },
    async ({ count }, extra) => {
      const results: unknown[] = [];
      for (let i = 0; i < count; i++) {
        results.push(
          await outcome(
            extra.sendRequest(
              {
                method: 'sampling/createMessage',
                params: {
                  messages: [{ role: 'user', content: { type: 'text', text: `#${i}` } }],
                  maxTokens: 10,
                },
              },
              CreateMessageResultSchema,
            ),
          ),
        );
      }
      return text(results);
    },
  );
  server.registerTool(
    'pair',
    { description: 'Waits for a second call of itself, then samples.', inputSchema: { tag: z.string() } },
    async ({ tag }, extra) => {
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (waiting.length === 2) {
          for (const go of waiting) go();
          waiting = [];
        }
      });
      const result = await outcome(
        extra.sendRequest(
          {
            method: 'sampling/createMessage',
            params: { messages: [{ role: 'user', content: { type: 'text', text: tag } }], maxTokens: 10 },
          },
          CreateMessageResultSchema,
        ),
      );
      return text(result);
    },
  );
  server.registerTool(
    'ask',
    { description: 'Asks the client user their name and age.', inputSchema: {} },
    async (_args, extra) => {
      const result = await outcome(
        extra.sendRequest(
          {
            method: 'elicitation/create',
            params: {
              mode: 'form',
              message: 'Who are you?',
              requestedSchema: {
                type: 'object',
                properties: {
                  name: { type: 'string', default: 'Ann' },
                  age: { type: 'integer', minimum: 0 },
                },
                required: ['age'],
              },
            },
          },
          ElicitResultSchema,
        ),
      );
      return text(result);
    },
  );
  server.registerTool(
    'roots',
    { description: "Lists the client's roots.", inputSchema: {} },
    async (_a, extra) =>
      text(await outcome(extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema))),
  );
  server.registerTool(
    'client_capabilities',
    { description: 'What the client declared.', inputSchema: {} },
    async () => text(server.server.getClientCapabilities() ?? {}),
  );
  server.registerTool(
    'startup_sampling',
    { description: 'What became of the sampling request sent right after initialize.', inputSchema: {} },
    async () => text(startup),
  );
  return server;
}

export interface RequestsHttpServer {
  url: string;
  stop(): Promise<void>;
}

/** The server over Streamable HTTP on 127.0.0.1 (a session per initialize). */
export async function startRequestsServer(): Promise<RequestsHttpServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http: Server = createServer(async (req, res) => {
    const session = req.headers['mcp-session-id'] as string | undefined;
    let transport = session ? sessions.get(session) : undefined;
    if (session && !transport) {
      res.writeHead(404).end();
      return;
    }
    if (!transport) {
      const fresh = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, fresh);
        },
      });
      await requestsServer().connect(fresh);
      transport = fresh;
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    async stop() {
      for (const transport of sessions.values()) await transport.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}

if (process.argv[1] === REQUESTS_SERVER) await requestsServer().connect(new StdioServerTransport());
