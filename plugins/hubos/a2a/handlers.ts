import { A2A_VERSION_HEADER, AgentCard } from '@a2a-js/sdk';
import type { Context } from 'hono';
import type { HubOS } from '../hubos.ts';
import { A2AEndpoints } from './endpoints.ts';
import { handleJsonRpc } from './json-rpc.ts';
import { legacyCard, wantsLegacy } from './legacy-card.ts';

/** What the A2A routes answer with, once the A2A SDK is loaded (index.ts loads this module on first use). */
export interface A2AHandlers {
  /** The agent card of the agent served as `name`, in the shape the A2A-Version header asks for. */
  card(c: Context, name: string): Promise<Response>;
  /** One JSON-RPC request to the agent served as `name`. */
  rpc(c: Context, name: string): Promise<Response>;
}

export function a2aHandlers(hubos: HubOS): A2AHandlers {
  const endpoints = new A2AEndpoints(hubos);
  return {
    async card(c, name) {
      hubos.agent(name, c.get('principal')); // 404 for an agent hidden from this caller
      const card = endpoints.get(name).card(hubos.baseUrl);
      // As the SDK's card handler: the answer depends on the version header, so caches must key on it.
      c.header('Vary', A2A_VERSION_HEADER);
      c.header('Cache-Control', 'no-cache');
      return c.json(
        wantsLegacy(c.req.header(A2A_VERSION_HEADER)) ? await legacyCard(card) : AgentCard.toJSON(card),
      );
    },
    async rpc(c, name) {
      hubos.agent(name, c.get('principal')); // 404 for an agent hidden from this caller
      return handleJsonRpc(c, endpoints.get(name), c.get('principal'));
    },
  };
}
