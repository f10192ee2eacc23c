import { A2A_VERSION_HEADER, AgentCard } from '@a2a-js/sdk';
import type { Context, Hono } from 'hono';
import { HubosError } from '../../../core/index.ts';
import type { HubOS } from '../hubos.ts';
import type { Principal } from '../kit/principal.ts';
import { A2AEndpoints } from './endpoints.ts';
import { handleJsonRpc } from './json-rpc.ts';
import { legacyCard, wantsLegacy } from './legacy-card.ts';

export { a2aPath, buildAgentCard } from './card.ts';
export { HubOSAgentExecutor } from './executor.ts';
export { HubOSTaskStore } from './task-store.ts';

/**
 * A2A v1.0 per agent: the card at `/a2a/<name>/.well-known/agent-card.json` (the default agent's
 * also at `/.well-known/agent-card.json`) and the JSON-RPC endpoint it names, `/a2a/<name>`.
 * Cards are public (app.ts lets them through); the endpoint is behind the API-key check.
 */
export async function a2aRoutes(app: Hono, hubos: HubOS): Promise<void> {
  const endpoints = new A2AEndpoints(hubos);
  hubos.document(
    {
      method: 'get',
      path: '/.well-known/agent-card.json',
      summary:
        'A2A agent card of the default agent (the first one served); v0.3 shape without an A2A-Version header',
      tags: ['a2a'],
      responses: { 404: 'No agent is served' },
    },
    {
      method: 'get',
      path: '/a2a/{name}/.well-known/agent-card.json',
      summary: "An agent's A2A agent card; v0.3 shape without an A2A-Version header",
      tags: ['a2a'],
      responses: { 404: 'No such agent' },
    },
    {
      method: 'post',
      path: '/a2a/{name}',
      summary:
        'A2A JSON-RPC: SendMessage, SendStreamingMessage (SSE), GetTask, ListTasks, CancelTask, SubscribeToTask; v0.3 methods without an A2A-Version header',
      tags: ['a2a'],
      sse: true,
      responses: { 401: 'Missing or invalid API key', 404: 'No such agent' },
    },
  );

  const serveCard = async (c: Context, name: string) => {
    hubos.agent(name, c.get('principal')); // 404 for an agent hidden from this caller
    const card = endpoints.get(name).card(hubos.baseUrl);
    // As the SDK's card handler: the answer depends on the version header, so caches must key on it.
    c.header('Vary', A2A_VERSION_HEADER);
    c.header('Cache-Control', 'no-cache');
    return c.json(
      wantsLegacy(c.req.header(A2A_VERSION_HEADER)) ? await legacyCard(card) : AgentCard.toJSON(card),
    );
  };
  app.get('/.well-known/agent-card.json', (c) => serveCard(c, defaultAgentName(hubos, c.get('principal'))));
  app.get('/a2a/:name/.well-known/agent-card.json', (c) => serveCard(c, c.req.param('name')));

  const rpc = (c: Context) => {
    const name = c.req.param('name')!;
    hubos.agent(name, c.get('principal')); // 404 for an agent hidden from this caller
    return handleJsonRpc(c, endpoints.get(name), c.get('principal'));
  };
  // The card names `/a2a/<name>`; clients that keep the base URL's trailing slash post there too.
  app.post('/a2a/:name', rpc);
  app.post('/a2a/:name/', rpc);
}

/** The first served agent. HubOS serves agents under their id (as `/api/agents` lists them). */
function defaultAgentName(hubos: HubOS, principal: Principal): string {
  const first = hubos.listAgents(principal)[0];
  if (!first)
    throw new HubosError('AGENT_NOT_FOUND', 'no agent is served, so there is no default agent card');
  return first.id;
}
