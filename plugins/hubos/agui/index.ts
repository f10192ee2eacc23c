import type { Hono } from 'hono';
import type { HubOS } from '../hubos.ts';
import { RUN_BODY } from '../routes/agents.ts';

// The AG-UI docs' summary of the request body; the full check is @ag-ui/core's RunAgentInputSchema.
const RUN_AGENT_INPUT_DOC = {
  type: 'object',
  description: 'An AG-UI RunAgentInput. threadId is the HubOS session id; tools are client-executed tools.',
  properties: {
    threadId: { type: 'string', pattern: RUN_BODY.properties.sessionId.pattern },
    runId: { type: 'string' },
    messages: { type: 'array', items: { type: 'object' } },
    tools: { type: 'array', items: { type: 'object' } },
    context: { type: 'array', items: { type: 'object' } },
    state: {},
    forwardedProps: {},
  },
  required: ['threadId', 'runId', 'messages'],
} as const;

/**
 * AG-UI per agent: `POST /agui/<name>` runs the agent on a RunAgentInput and streams AG-UI
 * events, for `@ag-ui/client`'s HttpAgent and the UIs built on it. Mounted by buildApp after
 * the REST routes.
 */
export async function aguiRoutes(app: Hono, hubos: HubOS): Promise<void> {
  hubos.document({
    method: 'post',
    path: '/agui/{name}',
    summary: 'Run an agent over AG-UI: a RunAgentInput in, AG-UI events out (SSE, or protobuf when accepted)',
    tags: ['ag-ui'],
    body: RUN_AGENT_INPUT_DOC,
    sse: true,
    responses: { 400: 'Invalid RunAgentInput', 404: 'No such agent' },
  });

  // @ag-ui/core (with zod) and the encoder load with the first AG-UI request, not with every server.
  let loaded: Promise<[typeof import('./input.ts'), typeof import('./stream.ts')]> | undefined;
  const load = () => {
    loaded ??= Promise.all([import('./input.ts'), import('./stream.ts')]);
    return loaded;
  };
  app.post('/agui/:name', async (c) => {
    const agent = hubos.agent(c.req.param('name'), c.get('principal'));
    const [{ readRunInput }, { streamRun }] = await load();
    const run = await readRunInput(c, agent);
    return streamRun(c, agent, run, hubos.runs, c.get('principal'));
  });
}
