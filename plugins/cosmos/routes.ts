import type { Hono } from 'hono';
import { type Agent, HubosError, type KernelView } from '../../core/index.ts';
import { readBody } from '../hubos/body.ts';
import { getHubOSHooks } from '../hubos/hooks.ts';
import { HttpError } from '../hubos/http-error.ts';
import type { HubOS } from '../hubos/hubos.ts';
import type { Cosmos } from './cosmos.ts';
import { AGENT_ID_PATTERN, type CreateOptions } from './types.ts';

export const CREATE_BODY = {
  type: 'object',
  properties: {
    agentId: { type: 'string', pattern: AGENT_ID_PATTERN, description: "The new agent's id." },
    templateId: { type: 'string', minLength: 1, description: "A key of the config's `agents`." },
    instructions: { type: 'string', description: "Replaces the template's instructions." },
    model: { type: 'string', minLength: 1, description: "A model reference, e.g. 'openai:gpt-4.1-mini'." },
    tools: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'Tool names or globs.' },
    metadata: { type: 'object', description: "Merged over the template's metadata." },
  },
  required: ['agentId', 'templateId'],
  additionalProperties: false,
} as const;

/** Seconds a client told `COSMOS_FULL` should wait before trying again. */
export const RETRY_AFTER_SECONDS = 5;

function describe(cosmos: Cosmos, agent: Agent) {
  return {
    ...cosmos.info(agent.id),
    description: agent.spec.description ?? '',
    model: agent.modelRef,
    tools: agent.tools.map((tool) => tool.name),
  };
}

/** The HTTP status of Cosmos's own errors (the rest go to HubOS's error handler). */
function httpError(error: unknown): unknown {
  if (HubosError.is(error, 'COSMOS_FULL'))
    return new HttpError(503, error.code, error.message, { 'retry-after': String(RETRY_AFTER_SECONDS) });
  if (HubosError.is(error, 'TEMPLATE_NOT_FOUND')) return new HttpError(404, error.code, error.message);
  return error;
}

/**
 * `POST /cosmos/agents`, `GET /cosmos/agents?filter=`, `GET|DELETE /cosmos/agents/:id` and
 * `GET /cosmos/stats` under the API prefix. Agents created here are served like configured ones
 * (`/agents/:id/run`, A2A, AG-UI) when the hubos plugin serves the kernel.
 */
export function cosmosRoutes(app: Hono, hubos: HubOS, cosmos: Cosmos): void {
  const base = `${hubos.apiPrefix}/cosmos`;
  hubos.document(
    {
      method: 'post',
      path: `${base}/agents`,
      summary: 'Create an agent from a template',
      tags: ['cosmos'],
      body: CREATE_BODY,
      responses: {
        201: 'Created',
        400: 'Invalid body',
        404: 'No such template',
        409: 'An agent with this id exists',
        503: 'Cosmos is full (see Retry-After)',
      },
    },
    { method: 'get', path: `${base}/agents`, summary: 'List agents (?filter= id prefix)', tags: ['cosmos'] },
    {
      method: 'get',
      path: `${base}/agents/{id}`,
      summary: 'Describe an agent: template, state, runs, usage',
      tags: ['cosmos'],
      responses: { 404: 'No such agent' },
    },
    {
      method: 'delete',
      path: `${base}/agents/{id}`,
      summary: 'Delete an agent, cancelling its running work',
      tags: ['cosmos'],
      responses: { 404: 'No such agent' },
    },
    {
      method: 'get',
      path: `${base}/stats`,
      summary: 'Capacity, counts, totals and per-agent stats',
      tags: ['cosmos'],
    },
  );

  const found = (id: string): Agent => {
    const agent = cosmos.get(id);
    if (!agent) throw new HttpError(404, 'AGENT_NOT_FOUND', `no agent "${id}" in cosmos`);
    return agent;
  };

  app.post(`${base}/agents`, async (c) => {
    const body = await readBody<CreateOptions>(c, CREATE_BODY);
    const agent = await cosmos.create({ via: 'http' }, body).catch((error: unknown) => {
      throw httpError(error);
    });
    return c.json(describe(cosmos, agent), 201, { location: `${base}/agents/${agent.id}` });
  });
  app.get(`${base}/agents`, (c) =>
    c.json({ agents: cosmos.list(c.req.query('filter') ?? '').map((agent) => describe(cosmos, agent)) }),
  );
  app.get(`${base}/agents/:id`, (c) => c.json(describe(cosmos, found(c.req.param('id')))));
  app.delete(`${base}/agents/:id`, async (c) => {
    const id = c.req.param('id');
    found(id);
    await cosmos.delete(id);
    return c.json({ deleted: id });
  });
  app.get(`${base}/stats`, (c) => c.json(cosmos.stats()));
}

/** Adds the routes to every HubOS built on this kernel (through `getHubOSHooks(kernel).routes`). */
export function tapCosmosRoutes(kernel: KernelView, cosmos: () => Cosmos | undefined): void {
  getHubOSHooks(kernel).routes.tap('cosmos', ({ app, hubos }) => {
    const current = cosmos();
    if (current) cosmosRoutes(app, hubos, current);
  });
}
