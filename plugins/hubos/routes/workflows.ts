import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { HubosError } from '../../../core/index.ts';
import { readBody } from '../body.ts';
import { onClientGone } from '../client-gone.ts';
import { HttpError } from '../http-error.ts';
import type { HubOS, WorkflowLike } from '../hubos.ts';
import { sseEventWriter } from '../sse-event.ts';

export const WORKFLOW_RUN_BODY = {
  type: 'object',
  properties: {
    input: { description: "The workflow's input, checked against its inputSchema (default {})." },
    runId: {
      type: 'string',
      pattern: '^[A-Za-z0-9_.:-]{1,200}$',
      description: 'The run id (default: a UUID).',
    },
    async: {
      type: 'boolean',
      description: 'true: answer 202 at once; follow it at GET /workflows/runs/{id}.',
    },
  },
  additionalProperties: false,
} as const;

export const WORKFLOW_RESUME_BODY = {
  type: 'object',
  properties: { async: WORKFLOW_RUN_BODY.properties.async },
  additionalProperties: false,
} as const;

/** The HTTP status of each workflow error (in `error.details.workflow`). */
const STATUS_BY_CODE: Record<string, ContentfulStatusCode> = {
  WORKFLOW_INPUT_INVALID: 400,
  WORKFLOW_RUN_NOT_FOUND: 404,
  WORKFLOW_RUN_ACTIVE: 409,
  WORKFLOW_RUN_FINISHED: 409,
};

async function mapped<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const code = HubosError.is(error) ? error.details.workflow : undefined;
    if (typeof code === 'string' && STATUS_BY_CODE[code])
      throw new HttpError(STATUS_BY_CODE[code], code, (error as Error).message);
    throw error;
  }
}

const wantsStream = (c: Context) => (c.req.header('accept') ?? '').includes('text/event-stream');

/**
 * Over the registered workflows: list, describe (steps as data), recent runs, run (JSON, SSE, or
 * `async: true` for 202 at once), and by run id: status, resume, cancel.
 */
export function workflowRoutes(app: Hono, hubos: HubOS): void {
  const api = `${hubos.apiPrefix}/workflows`;
  document(hubos, api);

  const found = (name: string): WorkflowLike => {
    const workflow = hubos.workflows.get(name);
    if (!workflow)
      throw new HttpError(
        404,
        'WORKFLOW_NOT_FOUND',
        `no workflow "${name}" (workflows: ${[...hubos.workflows.keys()].join(', ') || 'none'})`,
      );
    return workflow;
  };
  /** The workflow a run id belongs to, with its record. */
  const owner = async (runId: string): Promise<{ workflow: WorkflowLike; run: unknown }> => {
    for (const workflow of hubos.workflows.values()) {
      const run = await workflow.getRun(runId);
      if (run) return { workflow, run };
    }
    throw new HttpError(404, 'WORKFLOW_RUN_NOT_FOUND', `no workflow run "${runId}"`);
  };

  /** Answers a run as SSE, JSON when it ends, or 202 at once; tracked so shutdown drains it. */
  const answer = async (
    c: Context,
    background: boolean,
    start: (signal: AbortSignal) => AsyncIterable<unknown>,
  ) => {
    const controller = new AbortController();
    const streaming = !background && wantsStream(c);
    // A client that goes away cancels what it waits for; a background run goes on.
    const unwatch = background
      ? () => undefined
      : onClientGone(c, () => controller.abort(new HubosError('RUN_CANCELLED', 'the client went away')));
    const events = start(controller.signal)[Symbol.asyncIterator]();
    // The first event (workflow-start) comes after the input check: an error keeps its status.
    const first = await mapped(() => events.next());
    const runId = (first.value as { runId?: string } | undefined)?.runId;
    let result: unknown;
    const consume = async (write?: (event: unknown) => Promise<unknown>) => {
      for (let next = first; !next.done; next = await events.next()) {
        const event = next.value as { type?: string; result?: unknown };
        if (event.type === 'workflow-finish') result = event.result;
        await write?.(event);
      }
    };
    const tracked = (write?: (event: unknown) => Promise<unknown>) => {
      const done = consume(write);
      hubos.runs.track(controller, done);
      return done;
    };
    if (background) {
      void tracked().catch(() => undefined);
      return c.json({ runId, status: 'running', url: `${api}/runs/${runId}` }, 202);
    }
    if (streaming) {
      return streamSSE(c, async (stream) => {
        const write = sseEventWriter(stream);
        try {
          await tracked(write);
        } catch (error) {
          const code = HubosError.is(error) ? error.code : 'RUN_FAILED';
          await write({ type: 'error', error: { code, message: (error as Error).message } });
        }
      });
    }
    // A JSON answer waits at most the request timeout; past it the run goes on and 202 says where to follow it.
    const done = tracked();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), hubos.requestTimeoutMs);
    });
    try {
      if ((await Promise.race([done, late])) === 'late') {
        unwatch();
        void done.catch(() => undefined);
        return c.json({ runId, status: 'running', url: `${api}/runs/${runId}` }, 202);
      }
    } finally {
      clearTimeout(timer);
    }
    return c.json(result);
  };

  app.get(api, (c) =>
    c.json({
      workflows: [...hubos.workflows].map(([name, workflow]) => {
        const shape = workflow.describe() as { steps?: unknown[]; inputSchema?: unknown };
        return {
          name,
          ...(workflow.description ? { description: workflow.description } : {}),
          steps: shape.steps?.length ?? 0,
          inputSchema: shape.inputSchema,
        };
      }),
    }),
  );
  app.get(`${api}/runs/:id`, async (c) => c.json((await owner(c.req.param('id'))).run));
  app.post(`${api}/runs/:id/resume`, async (c) => {
    const { async: background = false } = await readBody<{ async?: boolean }>(c, WORKFLOW_RESUME_BODY);
    const { workflow } = await owner(c.req.param('id'));
    return answer(c, background, (signal) => workflow.resumeStream(c.req.param('id'), { signal }));
  });
  app.post(`${api}/runs/:id/cancel`, async (c) => {
    const id = c.req.param('id');
    const { workflow } = await owner(id);
    if (!workflow.cancel(id))
      throw new HttpError(
        409,
        'WORKFLOW_RUN_NOT_RUNNING',
        `workflow run "${id}" is not running in this server (see its status at ${api}/runs/${id}; resume it to continue)`,
      );
    return c.json({ runId: id, cancelled: true });
  });
  app.get(`${api}/:name`, (c) => c.json(found(c.req.param('name')).describe()));
  app.get(`${api}/:name/runs`, async (c) => c.json({ runs: await found(c.req.param('name')).listRuns() }));
  app.post(`${api}/:name/run`, async (c) => {
    const workflow = found(c.req.param('name'));
    const body = await readBody<{ input?: unknown; runId?: string; async?: boolean }>(c, WORKFLOW_RUN_BODY);
    const runId = body.runId ?? randomUUID();
    const input = 'input' in body ? body.input : {};
    return answer(c, body.async === true, (signal) => workflow.stream(input, { signal, runId }));
  });
}

function document(hubos: HubOS, api: string): void {
  const tags = ['workflows'];
  const noRun = { 404: 'No such run' };
  hubos.document(
    { method: 'get', path: api, summary: 'List workflows', tags },
    {
      method: 'get',
      path: `${api}/{name}`,
      summary: "A workflow's steps, as data",
      tags,
      responses: { 404: 'No such workflow' },
    },
    {
      method: 'get',
      path: `${api}/{name}/runs`,
      summary: "A workflow's recent runs, newest first",
      tags,
      responses: { 404: 'No such workflow' },
    },
    {
      method: 'post',
      path: `${api}/{name}/run`,
      summary:
        'Run a workflow (JSON when it ends, SSE with Accept: text/event-stream, or 202 with async: true)',
      tags,
      body: WORKFLOW_RUN_BODY,
      sse: true,
      responses: {
        202: 'Started (async)',
        400: 'Invalid body or input',
        404: 'No such workflow',
        409: 'The run id is taken',
      },
    },
    {
      method: 'get',
      path: `${api}/runs/{id}`,
      summary: 'A workflow run: status, every step with output, timing and usage',
      tags,
      responses: noRun,
    },
    {
      method: 'post',
      path: `${api}/runs/{id}/resume`,
      summary: 'Resume a run that did not complete, from its last finished step',
      tags,
      body: WORKFLOW_RESUME_BODY,
      sse: true,
      responses: { 202: 'Resumed (async)', ...noRun, 409: 'Completed, or still running' },
    },
    {
      method: 'post',
      path: `${api}/runs/{id}/cancel`,
      summary: 'Cancel a running workflow run',
      tags,
      responses: { ...noRun, 409: 'Not running in this server' },
    },
  );
}
