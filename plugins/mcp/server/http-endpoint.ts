import { Hono } from 'hono';
import { HubosError, type KernelView } from '../../../core/index.ts';
import { getHubOSHooks, type HubOS, type HubOSEnv, readJson } from '../../hubos/server.ts';
import type { McpService } from '../service.ts';
import { HttpSessions } from './http-sessions.ts';
import { createMcpServer } from './mcp-server.ts';

/** Sessions nobody used for an hour are closed (clients then start a new one, as MCP says). */
const IDLE_MS = 60 * 60_000;
const MAX_SESSIONS = 1000;

const JSON_RPC_MESSAGE = {
  type: 'object',
  description: 'A JSON-RPC 2.0 message of the Model Context Protocol (Streamable HTTP transport).',
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer'] },
    method: { type: 'string' },
    params: { type: 'object' },
  },
  required: ['jsonrpc'],
} as const;

/**
 * Serves the kernel's tools, resources and prompts over MCP (Streamable HTTP) at `serve.path`
 * (default `/mcp`) on every HubOS built on the kernel, behind its API-key auth and body limit.
 * `serve: false` turns it off.
 */
export function tapMcpEndpoint(kernel: KernelView, service: McpService): void {
  const config = () => service.config;
  const endpoints = new WeakMap<HubOS, HttpSessions>();
  const hooks = getHubOSHooks(kernel);
  hooks.routes.tap('mcp', ({ hubos, mount }) => {
    const serve = config().serve;
    if (serve === false) return;
    const sessions = new HttpSessions(
      (onCall, cutoff, principal) =>
        createMcpServer(kernel, {
          cutoff,
          principal: principal.id,
          // The agents the server hides from this caller (another key's Cosmos agents) are not offered.
          mayUseAgent: (agent) => hubos.mayUse(agent, principal),
          // Read per session: the selection is the config's at the time the client connects.
          serve: config().serve || {},
          name: hubos.name,
          version: hubos.version,
          onCall,
          // A call the policy asks about is one of the server's approvals: decidable at /api/approvals.
          approvalsElsewhere: true,
          // An ask_<agent> call is a recorded run: readable, followable and cancellable by id.
          runAgent: async (agent, message, { sessionId, signal, onEvent }) => {
            const record = await hubos.runs.start(agent, message, {
              principal,
              sessionId,
              signal,
              via: 'mcp',
              run: { via: 'mcp' },
              listener: onEvent,
            });
            const done = await hubos.runs.wait(record.id);
            if (done?.status === 'failed' || done?.status === 'interrupted' || !done?.result)
              throw new HubosError(
                done?.error?.code ?? 'RUN_FAILED',
                done?.error?.message ?? 'the run failed',
              );
            return done.result;
          },
        }),
      { maxBodyBytes: hubos.options.bodyLimit ?? 1024 * 1024, idleMs: IDLE_MS, maxSessions: MAX_SESSIONS },
    );
    endpoints.set(hubos, sessions);
    const path = serve?.path ?? '/mcp';
    // While the server drains, a session's messages (an approval's answer, a cancellation) still
    // reach it: the calls waiting on them are what the drain waits for.
    hubos.passWhileStopping((c) => c.req.path === path && c.req.header('mcp-session-id') !== undefined);
    mount(path, mcpRoute(hubos, path, sessions));
  });
  hooks.beforeStop.tapPromise('mcp', async ({ hubos }) => {
    await endpoints.get(hubos)?.close(hubos.options.shutdownTimeoutMs ?? 10_000);
  });
}

/** The endpoint as a sub-app answering at its mount path (documented by hand: one handler serves three methods). */
function mcpRoute(hubos: HubOS, path: string, sessions: HttpSessions): Hono<HubOSEnv> {
  const tags = ['mcp'];
  const responses = {
    400: 'Not an MCP message, or no Mcp-Session-Id outside initialize',
    404: 'No such MCP session (start a new one)',
  };
  hubos.document(
    {
      method: 'post',
      path,
      summary: 'MCP (Streamable HTTP): send JSON-RPC messages; initialize opens a session (Mcp-Session-Id)',
      tags,
      body: JSON_RPC_MESSAGE,
      sse: true,
      responses,
    },
    {
      method: 'get',
      path,
      summary: "MCP: the session's server-to-client event stream",
      tags,
      sse: true,
      responses,
    },
    { method: 'delete', path, summary: 'MCP: end the session', tags, responses },
  );
  return new Hono<HubOSEnv>().all('/', async (c) => {
    const origin = c.req.header('origin');
    // Every method, reads included: MCP asks servers to check Origin on all connections.
    if (origin !== undefined && !hubos.allowsOrigin(origin, c)) {
      return c.json(
        rpcError(
          `requests from the web page at ${origin} are refused (DNS rebinding protection): add it to server.cors.origin to allow it`,
        ),
        403,
      );
    }
    if (!['GET', 'POST', 'DELETE'].includes(c.req.method)) {
      return c.json(rpcError(`${c.req.method} is not used by MCP: send POST, GET or DELETE`), 405, {
        allow: 'GET, POST, DELETE',
      });
    }
    let parsedBody: unknown;
    if (c.req.method === 'POST') {
      // Read here, under the server's JSON rules (JSON Content-Type only, bounded depth), not by the SDK.
      try {
        parsedBody = await readJson(c);
      } catch (error) {
        if (!HubosError.is(error) || !JSON_REFUSALS.has(error.code)) throw error;
        const status = error.code === 'UNSUPPORTED_MEDIA_TYPE' ? 415 : 400;
        return c.json(rpcError(error.message, status === 415 ? -32000 : -32700), status);
      }
    }
    const answer = await sessions.handle(c.req.raw, c.get('principal'), parsedBody);
    if (answer instanceof Response) return answer;
    return c.json(rpcError(answer.message, answer.status === 404 ? -32001 : -32000), answer.status);
  });
}

/** The body errors answered as JSON-RPC errors (a 413 stays the server's own answer). */
const JSON_REFUSALS = new Set(['UNSUPPORTED_MEDIA_TYPE', 'INVALID_JSON', 'JSON_TOO_COMPLEX']);

/** Errors outside a session are JSON-RPC shaped, as MCP clients read them. */
function rpcError(message: string, code = -32000) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}
