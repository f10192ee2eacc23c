import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { type Agent, type AgentEvent, errorCodeSpec, HubosError } from '../../../core/index.ts';
import type { HubOS } from '../hubos.ts';
import { onClientGone } from '../kit/client-gone.ts';
import { readBody } from '../kit/read-body.ts';

export const RUN_BODY = {
  type: 'object',
  properties: {
    input: { type: 'string', minLength: 1, maxLength: 1_000_000, description: 'The user message.' },
    sessionId: {
      type: 'string',
      pattern: '^[A-Za-z0-9._:-]{1,128}$',
      description: 'Continue this conversation (created if new).',
    },
  },
  required: ['input'],
  additionalProperties: false,
} as const;

interface RunBody {
  input: string;
  sessionId?: string;
}

export function describeAgent(agent: Agent) {
  return {
    name: agent.id,
    description: agent.spec.description ?? '',
    model: agent.modelRef,
    tools: agent.tools.map((tool) => ({ name: tool.name, description: tool.description })),
  };
}

/** `GET /agents`, `GET /agents/:name`, `POST /agents/:name/run` (JSON, SSE, or async with `?async=true`). */
export function agentRoutes(app: Hono, hubos: HubOS): void {
  const api = hubos.apiPrefix;
  hubos.document(
    { method: 'get', path: `${api}/agents`, summary: 'List agents', tags: ['agents'] },
    {
      method: 'get',
      path: `${api}/agents/{name}`,
      summary: 'Describe an agent',
      tags: ['agents'],
      responses: { 404: 'No such agent' },
    },
    {
      method: 'post',
      path: `${api}/agents/{name}/run`,
      summary:
        'Run an agent: JSON result, SSE events with Accept: text/event-stream, or 202 with ?async=true',
      tags: ['agents'],
      body: RUN_BODY,
      sse: true,
      responses: {
        200: 'The run ended (JSON, or SSE events)',
        202: 'Run started (async)',
        400: 'Invalid body',
        404: 'No such agent',
        502: 'The model failed',
        504: 'Timed out',
      },
    },
  );

  app.get(`${api}/agents`, (c) =>
    c.json({ agents: hubos.listAgents(c.get('principal')).map(describeAgent) }),
  );
  app.get(`${api}/agents/:name`, (c) =>
    c.json(describeAgent(hubos.agent(c.req.param('name'), c.get('principal')))),
  );

  app.post(`${api}/agents/:name/run`, async (c) => {
    const agent = hubos.agent(c.req.param('name'), c.get('principal'));
    const body = await readBody<RunBody>(c, RUN_BODY);
    const principal = c.get('principal');
    const async = c.req.query('async');
    if (async === 'true' || async === '1') {
      // Queued: whichever instance has room runs it; the record says where it stands meanwhile.
      const record = await hubos.runs.enqueue(agent, body.input, { principal, sessionId: body.sessionId });
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
      // Events come before the stream opens; they wait here, in order, and are sent once it has.
      const pending: { event: AgentEvent; seq: number }[] = [];
      let send: ((event: AgentEvent, seq: number) => void) | undefined;
      // Started before the response: a store that is away answers 503 JSON, not an empty 200 stream.
      const record = await hubos.runs.start(agent, body.input, {
        principal,
        sessionId: body.sessionId,
        signal: disconnected.signal,
        run: { via: 'rest' },
        listener: (event, seq) => (send ? send(event, seq) : pending.push({ event, seq })),
      });
      return streamSSE(c, async (stream) => {
        stream.onAbort(() => disconnected.abort(new Error('the client disconnected')));
        const writes: Promise<void>[] = [];
        // Numbered, so a client that loses the stream resumes at GET /runs/:id/events with Last-Event-ID.
        send = (event, seq) => {
          writes.push(stream.writeSSE({ id: String(seq), event: event.type, data: JSON.stringify(event) }));
        };
        for (const { event, seq } of pending.splice(0)) send(event, seq);
        await hubos.runs.wait(record.id);
        await Promise.all(writes);
      });
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
      run: { streaming: false, via: 'rest' },
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
    if (done.status === 'failed') {
      const code = done.error?.code ?? 'RUN_FAILED';
      // The model failing mid-run makes the server a failed gateway (504 for its timeout); any other
      // code answers as it was declared (status and headers), an undeclared one 500.
      const answer: { status: number; headers?: Record<string, string> } = code.startsWith('MODEL_')
        ? { status: code === 'MODEL_TIMEOUT' ? 504 : 502 }
        : (errorCodeSpec(code) ?? { status: 500 });
      return c.json(
        { error: { code, message: done.error?.message ?? 'the run failed' }, result: done.result },
        answer.status as ContentfulStatusCode,
        answer.headers,
      );
    }
    return c.json(done.result);
  });
}
