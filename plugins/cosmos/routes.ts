import { Hono } from 'hono';
import { type Agent, HubosError, type KernelView, type Principal } from '../../core/index.ts';
import { describeRoute, getHubOSHooks, type HubOSEnv, readBody } from '../hubos/server.ts';
import { checkOverrides, mayView, requireAdmin } from './access.ts';
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
 * An agent created here is its caller's: other keys without `admin` get 404 for it and never list
 * it; such keys may only narrow a template (`COSMOS_OVERRIDE_DENIED`), and `/stats` is the admins'.
 */
export function cosmosRoutes(cosmos: Cosmos, base: string): Hono<HubOSEnv> {
  const tags = ['cosmos'];
  const found = (id: string, principal: Principal): Agent => {
    const agent = cosmos.get(id);
    const info = cosmos.info(id);
    // Another's agent answers as if absent.
    if (!agent || !info || !mayView(principal, info.owner))
      throw new HubosError('AGENT_NOT_FOUND', `no agent "${id}" in cosmos`);
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
          403: 'Tools, model or metadata beyond the template (keys without admin may only narrow it)',
          404: 'No such template',
          409: 'An agent with this id exists',
          503: 'Cosmos is full (see Retry-After)',
        },
      }),
      async (c) => {
        const body = await readBody(c, CREATE_BODY);
        const principal = c.get('principal');
        const template = Object.hasOwn(cosmos.templates, body.templateId)
          ? cosmos.templates[body.templateId]
          : undefined;
        checkOverrides(principal, template, body);
        const agent = await cosmos.create({ via: 'http', principal }, { ...body, owner: principal.id });
        return c.json(describe(cosmos, agent), 201, { location: `${base}/agents/${agent.id}` });
      },
    )
    .get(
      '/agents',
      describeRoute({ summary: "List agents (?filter= id prefix): the caller's and the shared ones", tags }),
      (c) => {
        const principal = c.get('principal');
        const agents = cosmos
          .list(c.req.query('filter') ?? '')
          .map((agent) => describe(cosmos, agent))
          .filter((info) => mayView(principal, info.owner));
        return c.json({ agents });
      },
    )
    .get(
      '/agents/:id',
      describeRoute({
        summary: 'Describe an agent: template, state, runs, usage',
        tags,
        responses: { 404: 'No such agent' },
      }),
      (c) => c.json(describe(cosmos, found(c.req.param('id'), c.get('principal')))),
    )
    .delete(
      '/agents/:id',
      describeRoute({
        summary: 'Delete an agent, cancelling its running work',
        tags,
        responses: { 403: 'A shared agent (only admin keys delete it)', 404: 'No such agent' },
      }),
      async (c) => {
        const id = c.req.param('id');
        const principal = c.get('principal');
        found(id, principal);
        if (cosmos.info(id)?.owner === undefined)
          requireAdmin(principal, `agent "${id}" is shared (not created over HTTP): deleting it`);
        await cosmos.delete(id);
        return c.json({ deleted: id });
      },
    )
    .get(
      '/stats',
      describeRoute({
        summary: 'Capacity, counts, totals and per-agent stats (admin keys only)',
        tags,
        responses: { 403: 'Not an admin key' },
      }),
      (c) => {
        requireAdmin(c.get('principal'), "cosmos stats (every key's agents)");
        return c.json(cosmos.stats());
      },
    );
}

/** Mounts the routes on every HubOS built on this kernel, at `<api>/cosmos`. */
export function tapCosmosRoutes(kernel: KernelView, cosmos: () => Cosmos | undefined): void {
  getHubOSHooks(kernel).routes.tap('cosmos', ({ api, mount, hubos }) => {
    const current = cosmos();
    if (!current) return;
    mount(`${api}/cosmos`, cosmosRoutes(current, `${api}/cosmos`));
    // An agent a key created is that key's to run, as it is its to see: other keys find it nowhere.
    // Asked on every request naming an agent: the owner alone, not the whole info record.
    hubos.guardAgents((agent, principal) => mayView(principal, current.ownerOf(agent.id)));
  });
}
