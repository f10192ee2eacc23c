import { Hono } from 'hono';
import { type Agent, BUDGET_SCHEMA, HubosError, type RunBudget } from '../../../core/index.ts';
import type { HubOS } from '../hubos.ts';
import { onClientGone } from '../kit/client-gone.ts';
import { RunFailedError } from '../kit/http-error.ts';
import type { HubOSEnv } from '../kit/principal.ts';
import { readBody } from '../kit/read-body.ts';
import { describeRoute } from '../kit/route-doc.ts';
import { sseBatch } from '../kit/sse-batch.ts';

export const RUN_BODY = {
  type: 'object',
  properties: {
    input: { type: 'string', minLength: 1, maxLength: 1_000_000, description: 'The user message.' },
    sessionId: {
      type: 'string',
      pattern: '^[A-Za-z0-9._:-]{1,128}$',
      description: 'Continue this conversation (created if new).',
    },
    budget: {
      ...BUDGET_SCHEMA,
      description: "Limits on this run, each tightening the agent's own budget (never raising it).",
    },
    userId: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      // No control character: PostgreSQL's text refuses NUL.
      pattern: '^[^\\u0000-\\u001f\\u007f]+$',
      description:
        'Which end user of this key the run is for: memory (working memory, recall) is kept per key and user. No control characters.',
    },
  },
  required: ['input'],
  additionalProperties: false,
} as const;

interface RunBody {
  input: string;
  sessionId?: string;
  budget?: RunBudget;
  userId?: string;
}

export function describeAgent(agent: Agent) {
  return {
    name: agent.id,
    description: agent.spec.description ?? '',
    model: agent.modelRef,
    tools: agent.tools.map((tool) => ({ name: tool.name, description: tool.description })),
  };
}

const tags = ['agents'];
const agentParam = { name: 'The agent, as GET /agents lists it' };
const noAgent = { AGENT_NOT_FOUND: 'No such agent (or one hidden from this key)' };

/**
 * `GET /agents`, `GET /agents/:name`, `POST /agents/:name/run` (JSON, SSE, or async with `?async=true`),
 * mounted under the API prefix.
 */
export function agentRoutes(hubos: HubOS): Hono<HubOSEnv> {
  const api = hubos.apiPrefix;
  return new Hono<HubOSEnv>()
    .get('/agents', describeRoute({ summary: 'List agents', tags }), (c) =>
      c.json({ agents: hubos.listAgents(c.get('principal')).map(describeAgent) }),
    )
    .get(
      '/agents/:name',
      describeRoute({ summary: 'Describe an agent', tags, params: agentParam, errors: noAgent }),
      (c) => c.json(describeAgent(hubos.agent(c.req.param('name'), c.get('principal')))),
    )
    .post(
      '/agents/:name/run',
      describeRoute({
        summary:
          'Run an agent: JSON result, SSE events with Accept: text/event-stream, or 202 with ?async=true',
        tags,
        params: agentParam,
        query: { async: 'true (or 1): queue the run and answer 202 at once with where to follow it' },
        body: RUN_BODY,
        sse: true,
        responses: {
          200: 'The run ended (JSON, or SSE events)',
          202: 'Run started (async)',
        },
        errors: {
          INVALID_JSON: 'The body is not JSON',
          JSON_TOO_COMPLEX: 'The body nests too deep or has too many keys',
          INVALID_BODY: 'The body does not fit the schema (the message names the field)',
          ...noAgent,
          MODEL_HTTP_ERROR: "The model failed (the run's result beside the error)",
          MODEL_RESPONSE_INVALID: 'The model sent a malformed answer',
          MODEL_TIMEOUT: 'The model was silent past its timeout',
          MODEL_CONFIG: "The agent's model provider is not set up (no API key, a bad baseURL)",
          RUN_TIMEOUT: 'The run took longer than server.requestTimeoutMs: use ?async=true',
          BUDGET_EXCEEDED:
            'The run passed one of its budgets (the message names it; the result is beside it)',
          BUDGET_INVALID: 'A costUsd budget for a model without a price',
          STORE_FAILED: 'The store is away: try again shortly',
        },
      }),
      async (c) => {
        const agent = hubos.agent(c.req.param('name'), c.get('principal'));
        const body = await readBody<RunBody>(c, RUN_BODY);
        const principal = c.get('principal');
        const async = c.req.query('async');
        // What the run is asked beyond its input: its record keeps it for whichever instance runs it.
        const asked = {
          ...(body.userId !== undefined ? { userId: body.userId } : {}),
          ...(body.budget ? { budget: body.budget } : {}),
        };
        if (async === 'true' || async === '1') {
          // Queued: whichever instance has room runs it; the record says where it stands meanwhile.
          const record = await hubos.runs.enqueue(agent, body.input, {
            principal,
            sessionId: body.sessionId,
            run: asked,
          });
          return c.json(
            {
              runId: record.id,
              status: record.status,
              href: `${api}/runs/${record.id}`,
              events: `${api}/runs/${record.id}/events`,
            },
            202,
          );
        }
        if ((c.req.header('accept') ?? '').includes('text/event-stream')) {
          const disconnected = new AbortController();
          const sse = sseBatch(() => disconnected.abort(new Error('the client disconnected')));
          // Started before the response: a store that is away answers 503 JSON, not an empty 200 stream.
          // Events are framed as they come and go out once the response does, in order.
          const record = await hubos.runs.start(agent, body.input, {
            principal,
            sessionId: body.sessionId,
            signal: disconnected.signal,
            run: { via: 'rest', ...asked },
            // Numbered, so a client that loses the stream resumes at GET /runs/:id/events with Last-Event-ID.
            listener: (event, seq) =>
              sse.send({ id: String(seq), event: event.type, data: JSON.stringify(event) }),
          });
          hubos.runs.wait(record.id).then(
            () => sse.close(),
            (error: unknown) => {
              console.error(error);
              sse.close();
            },
          );
          return sse.respond(c);
        }
        // One controller for both ends: the client leaving and the request timing out.
        const stop = new AbortController();
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          stop.abort(new Error('request timeout'));
        }, hubos.requestTimeoutMs);
        const unwatch = onClientGone(c, () => stop.abort(new Error('the client disconnected')));
        const record = await hubos.runs.start(agent, body.input, {
          principal,
          sessionId: body.sessionId,
          signal: stop.signal,
          // Answered as one JSON body: the model's answers need not stream.
          run: { streaming: false, via: 'rest', ...asked },
        });
        const done = (await hubos.runs.wait(record.id))!;
        clearTimeout(timer);
        unwatch();
        if (done.status === 'cancelled' && timedOut) {
          throw new HubosError(
            'RUN_TIMEOUT',
            `the run took longer than ${hubos.requestTimeoutMs} ms: use ?async=true for long runs`,
          );
        }
        // Answered as the error's code declares (a model failing: 502, its timeout: 504), like any error.
        if (done.status === 'failed')
          throw new RunFailedError(
            done.error?.code ?? 'RUN_FAILED',
            done.error?.message ?? 'the run failed',
            done.result,
          );
        return c.json(done.result);
      },
    );
}
