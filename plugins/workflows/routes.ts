import { type Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { HubosError, type KernelView, newRunId } from '../../core/index.ts';
import { didYouMean } from '../../core/internal.ts';
import {
  describeRoute,
  getHubOSHooks,
  type HubOS,
  type HubOSEnv,
  onClientGone,
  readBody,
  sseEventWriter,
} from '../hubos/server.ts';
import { WORKFLOW_ERROR_CODES } from './errors.ts';
import { WORKFLOW_PREFIX } from './run-view.ts';
import type { Workflow } from './workflow.ts';

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
      description:
        'true: queue it and answer 202 at once (an instance with room runs it); follow it at GET /workflows/runs/{id}.',
    },
  },
  additionalProperties: false,
} as const;

export const WORKFLOW_RESUME_BODY = {
  type: 'object',
  properties: {
    async: {
      type: 'boolean',
      description:
        'true: resume it on this server and answer 202 at once; follow it at GET /workflows/runs/{id}.',
    },
  },
  additionalProperties: false,
} as const;

type AnyWorkflow = Workflow<never>;
const wantsStream = (c: Context) => (c.req.header('accept') ?? '').includes('text/event-stream');

/**
 * The workflows, mounted at `<api>/workflows`: list, describe (steps as data), recent runs, run
 * (JSON, SSE, or `async: true` for 202 at once), and by run id: status, resume, cancel. Runs are
 * runs of HubOS's engine, so its graceful shutdown drains them. A run is its caller's (`owner`: the
 * principal's id): another caller gets 404 for it and never lists it; an admin key sees them all.
 */
export function workflowRoutes(
  workflows: ReadonlyMap<string, AnyWorkflow>,
  hubos: HubOS,
  base: string,
): Hono<HubOSEnv> {
  const tags = ['workflows'];
  const noRun = { 404: 'No such run' };
  const found = (name: string): AnyWorkflow => {
    const workflow = workflows.get(name);
    if (!workflow)
      throw WORKFLOW_ERROR_CODES.create(
        'WORKFLOW_NOT_FOUND',
        `no workflow "${name}"${didYouMean(name, workflows.keys())} (workflows: ${[...workflows.keys()].join(', ') || 'none'})`,
      );
    return workflow;
  };
  /** The workflow a run id belongs to, with its record: 404 as well for a run the caller may not see. */
  const findRun = async (c: Context, runId: string) => {
    // The run's record names its workflow (`workflow:<name>`): one read, whatever the number of
    // workflows, from their engine (the kernel's, which is this HubOS's unless it has a store of its own).
    const engine = workflows.values().next().value?.engine;
    const record = await engine?.get(runId, c.get('principal'));
    const name = record?.agent.startsWith(WORKFLOW_PREFIX) ? record.agent.slice(WORKFLOW_PREFIX.length) : '';
    const workflow = workflows.get(name);
    const run = await workflow?.getRun(runId);
    if (workflow && run) return { workflow, run };
    throw WORKFLOW_ERROR_CODES.create('WORKFLOW_RUN_NOT_FOUND', `no workflow run "${runId}"`);
  };

  /** Answers a run as SSE, JSON when it ends, or 202 at once. */
  const answer = async (
    c: Context,
    workflow: AnyWorkflow,
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
    const first = await events.next();
    const runId = (first.value as { runId?: string } | undefined)?.runId;
    let result: unknown;
    const consume = (write?: (event: unknown) => Promise<unknown>) => {
      const done = (async () => {
        for (let next = first; !next.done; next = await events.next()) {
          const event = next.value as { type?: string; result?: unknown };
          if (event.type === 'workflow-finish') result = event.result;
          await write?.(event);
        }
      })();
      // A run of this HubOS's engine is drained by it like any run; a HubOS with a store of its
      // own (whose engine is not the kernel's) waits for it too at its shutdown.
      if (workflow.engine !== hubos.runs) hubos.runs.track(controller, done);
      return done;
    };
    const started = () => c.json({ runId, status: 'running', url: `${base}/runs/${runId}` }, 202);
    if (background) {
      void consume().catch(() => undefined);
      return started();
    }
    if (streaming) {
      return streamSSE(c, async (stream) => {
        const write = sseEventWriter(stream);
        try {
          await consume(write);
        } catch (error) {
          const code = HubosError.is(error) ? error.code : 'RUN_FAILED';
          await write({ type: 'error', error: { code, message: (error as Error).message } });
        }
      });
    }
    // A JSON answer waits at most the request timeout; past it the run goes on and 202 says where to follow it.
    const done = consume();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), hubos.requestTimeoutMs);
    });
    try {
      if ((await Promise.race([done, late])) === 'late') {
        unwatch();
        void done.catch(() => undefined);
        return started();
      }
    } finally {
      clearTimeout(timer);
    }
    return c.json(result);
  };

  return new Hono<HubOSEnv>()
    .get('/', describeRoute({ summary: 'List workflows', tags }), (c) =>
      c.json({
        workflows: [...workflows].map(([name, workflow]) => {
          const shape = workflow.describe();
          return {
            name,
            ...(workflow.description ? { description: workflow.description } : {}),
            steps: shape.steps.length,
            inputSchema: shape.inputSchema,
          };
        }),
      }),
    )
    .get(
      '/runs/:id',
      describeRoute({
        summary: 'A workflow run: status, every step with output, timing and usage',
        tags,
        responses: noRun,
      }),
      async (c) => c.json((await findRun(c, c.req.param('id'))).run),
    )
    .post(
      '/runs/:id/resume',
      describeRoute({
        summary: 'Resume a run that did not complete, from its last finished step',
        tags,
        body: WORKFLOW_RESUME_BODY,
        sse: true,
        responses: {
          200: 'The run ended (JSON, or SSE events)',
          202: 'Resumed (async)',
          ...noRun,
          409: 'Completed, or still running',
        },
      }),
      async (c) => {
        const { async: background = false } = await readBody(c, WORKFLOW_RESUME_BODY);
        const { workflow } = await findRun(c, c.req.param('id'));
        return answer(c, workflow, background, (signal) =>
          workflow.resumeStream(c.req.param('id'), { signal }),
        );
      },
    )
    .post(
      '/runs/:id/cancel',
      describeRoute({
        summary: 'Cancel a running workflow run',
        tags,
        responses: { ...noRun, 409: 'Neither queued nor running' },
      }),
      async (c) => {
        const id = c.req.param('id');
        const { workflow } = await findRun(c, id);
        // Here, in the queue, or on another instance: the engine's cancel.
        if (!(await workflow.cancel(id)))
          throw WORKFLOW_ERROR_CODES.create(
            'WORKFLOW_RUN_NOT_RUNNING',
            `workflow run "${id}" is neither queued nor running (see its status at ${base}/runs/${id}; resume it to continue)`,
          );
        return c.json({ runId: id, cancelled: true });
      },
    )
    .get(
      '/:name',
      describeRoute({ summary: "A workflow's steps, as data", tags, responses: { 404: 'No such workflow' } }),
      (c) => c.json(found(c.req.param('name')).describe()),
    )
    .get(
      '/:name/runs',
      describeRoute({
        summary: "A workflow's recent runs, newest first",
        tags,
        responses: { 404: 'No such workflow' },
      }),
      async (c) => {
        const principal = c.get('principal');
        // One page of the runs table: the caller's own runs, or everyone's for an admin key.
        const runs = await found(c.req.param('name')).listRuns(
          50,
          principal.admin ? {} : { owner: principal.id },
        );
        return c.json({ runs });
      },
    )
    .post(
      '/:name/run',
      describeRoute({
        summary:
          'Run a workflow (JSON when it ends, SSE with Accept: text/event-stream, or 202 with async: true)',
        tags,
        body: WORKFLOW_RUN_BODY,
        sse: true,
        responses: {
          200: 'The run ended (JSON, or SSE events)',
          202: 'Queued (async)',
          400: 'Invalid body or input',
          404: 'No such workflow',
          409: 'The run id is taken',
        },
      }),
      async (c) => {
        const workflow = found(c.req.param('name'));
        const body = await readBody(c, WORKFLOW_RUN_BODY);
        const runId = body.runId ?? newRunId();
        const input = ('input' in body ? body.input : {}) as never;
        const principal = c.get('principal').id;
        if (body.async === true) {
          // Queued: whichever instance has room runs it (the input is checked here, before the 202).
          const header = await workflow.enqueue(input, { runId, principal });
          return c.json({ runId, status: header.status, url: `${base}/runs/${runId}` }, 202);
        }
        return answer(c, workflow, false, (signal) => workflow.stream(input, { signal, runId, principal }));
      },
    );
}

/** Mounts the workflow routes on every HubOS built on this kernel, at `<api>/workflows`. */
export function tapWorkflowRoutes(kernel: KernelView, workflows: ReadonlyMap<string, AnyWorkflow>): void {
  getHubOSHooks(kernel).routes.tap('workflows', ({ api, hubos, mount }) => {
    mount(`${api}/workflows`, workflowRoutes(workflows, hubos, `${api}/workflows`));
  });
}
