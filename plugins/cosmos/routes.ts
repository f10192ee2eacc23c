import { Hono } from 'hono';
import { type Agent, HubosError, type KernelView } from '../../core/index.ts';
import { describeRoute, getHubOSHooks, type HubOSEnv, readBody } from '../hubos/index.ts';
import type { Cosmos } from './cosmos.ts';
import { AGENT_ID_PATTERN } from './types.ts';

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

function describe(cosmos: Cosmos, agent: Agent) {
  return {
    ...cosmos.info(agent.id),
    description: agent.spec.description ?? '',
    model: agent.modelRef,
    tools: agent.tools.map((tool) => tool.name),
  };
}

/**
 * `POST /agents`, `GET /agents?filter=`, `GET|DELETE /agents/:id` and `GET /stats`, mounted at
 * `<api>/cosmos`. Agents created here are served like configured ones (`/agents/:id/run`, A2A,
 * AG-UI) when the hubos plugin serves the kernel. `base` is where it is mounted (for `Location`).
 */
export function cosmosRoutes(cosmos: Cosmos, base: string): Hono<HubOSEnv> {
  const tags = ['cosmos'];
  const found = (id: string): Agent => {
    const agent = cosmos.get(id);
    if (!agent) throw new HubosError('AGENT_NOT_FOUND', `no agent "${id}" in cosmos`);
    return agent;
  };
  return new Hono<HubOSEnv>()
    .post(
      '/agents',
      describeRoute({
        summary: 'Create an agent from a template',
        tags,
        body: CREATE_BODY,
        responses: {
          201: 'Created',
          400: 'Invalid body',
          404: 'No such template',
          409: 'An agent with this id exists',
          503: 'Cosmos is full (see Retry-After)',
        },
      }),
      async (c) => {
        const body = await readBody(c, CREATE_BODY);
        const agent = await cosmos.create({ via: 'http' }, body);
        return c.json(describe(cosmos, agent), 201, { location: `${base}/agents/${agent.id}` });
      },
    )
    .get('/agents', describeRoute({ summary: 'List agents (?filter= id prefix)', tags }), (c) =>
      c.json({ agents: cosmos.list(c.req.query('filter') ?? '').map((agent) => describe(cosmos, agent)) }),
    )
    .get(
      '/agents/:id',
      describeRoute({
        summary: 'Describe an agent: template, state, runs, usage',
        tags,
        responses: { 404: 'No such agent' },
      }),
      (c) => c.json(describe(cosmos, found(c.req.param('id')))),
    )
    .delete(
      '/agents/:id',
      describeRoute({
        summary: 'Delete an agent, cancelling its running work',
        tags,
        responses: { 404: 'No such agent' },
      }),
      async (c) => {
        const id = c.req.param('id');
        found(id);
        await cosmos.delete(id);
        return c.json({ deleted: id });
      },
    )
    .get('/stats', describeRoute({ summary: 'Capacity, counts, totals and per-agent stats', tags }), (c) =>
      c.json(cosmos.stats()),
    );
}

/** Mounts the routes on every HubOS built on this kernel, at `<api>/cosmos`. */
export function tapCosmosRoutes(kernel: KernelView, cosmos: () => Cosmos | undefined): void {
  getHubOSHooks(kernel).routes.tap('cosmos', ({ api, mount }) => {
    const current = cosmos();
    if (current) mount(`${api}/cosmos`, cosmosRoutes(current, `${api}/cosmos`));
  });
}
