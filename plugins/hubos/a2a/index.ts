import type { Context, Hono } from 'hono';
import type { Principal } from '../../../core/index.ts';
import { HubosError } from '../../../core/index.ts';
import type { HubOS } from '../hubos.ts';
import type { A2AHandlers } from './handlers.ts';

/**
 * A2A v1.0 per agent: the card at `/a2a/<name>/.well-known/agent-card.json` (the default agent's
 * also at `/.well-known/agent-card.json`) and the JSON-RPC endpoint it names, `/a2a/<name>`.
 * Cards are public (app.ts lets them through); the endpoint is behind the API-key check.
 */
export async function a2aRoutes(app: Hono, hubos: HubOS): Promise<void> {
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

  // The A2A SDK loads with the first A2A request: a server nobody asks over A2A never pays for it.
  let loaded: Promise<A2AHandlers> | undefined;
  const handlers = () => {
    loaded ??= import('./handlers.ts').then(({ a2aHandlers }) => a2aHandlers(hubos));
    return loaded;
  };
  app.get('/.well-known/agent-card.json', async (c) =>
    (await handlers()).card(c, defaultAgentName(hubos, c.get('principal'))),
  );
  app.get('/a2a/:name/.well-known/agent-card.json', async (c) =>
    (await handlers()).card(c, c.req.param('name')),
  );

  const rpc = async (c: Context) => (await handlers()).rpc(c, c.req.param('name')!);
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
