import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import {
  encodeCursor,
  HubosError,
  parseRunQuery,
  pricedSteps,
  priceTable,
  RUN_STATES,
  RUN_SURFACES,
  runTotals,
} from '../../../core/index.ts';
import type { HubOS } from '../hubos.ts';
import type { HubOSEnv } from '../kit/principal.ts';
import { describeRoute } from '../kit/route-doc.ts';
import { runStepDoc, runStepHandler } from './run-step.ts';

/** A client resuming says the last event number it saw; anything else starts from the first. */
function lastEventId(value: string | undefined): number {
  return value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : 0;
}

const tags = ['runs'];
const runParam = { id: 'The run id (202 answers of ?async=true runs and GET /runs give it)' };
const noRun = { RUN_NOT_FOUND: "No such run (another key's runs do not exist for this one)" };
const storeAway = { STORE_FAILED: 'The store is away: try again shortly' };

/**
 * `GET /runs` (the caller's runs, newest first, by pages), `GET /runs/:id` (status and result),
 * `GET /runs/:id/steps`, `GET /runs/:id/steps/:seq` (one step's payload), `GET /runs/:id/events` (SSE, resumable), `POST /runs/:id/cancel` and
 * `DELETE /runs/:id`, for a run on any instance of the service; mounted under the API prefix.
 */
export function runRoutes(hubos: HubOS): Hono<HubOSEnv> {
  return new Hono<HubOSEnv>()
    .get(
      '/runs',
      describeRoute({
        summary: "The caller's runs (an admin key's: everyone's), newest first, a page at a time",
        tags,
        query: {
          agent: 'Only the runs of this agent',
          status: `Only runs in this state: ${RUN_STATES.join(', ')}`,
          via: `Only runs started this way: ${RUN_SURFACES.join(', ')}`,
          sessionId: 'Only the runs of this conversation',
          since: 'Only runs created at or after this time (ISO 8601 or ms)',
          until: 'Only runs created before this time (ISO 8601 or ms)',
          limit: 'Runs per page, 1-200 (default 50)',
          cursor: "The previous page's nextCursor",
          q: 'Only runs whose input holds this text, whatever its case (1-200 characters; % and _ are plain characters)',
        },
        errors: {
          RUN_QUERY_INVALID: 'A filter, limit or cursor that makes no sense (the message names it)',
          ...storeAway,
        },
      }),
      async (c) => {
        const query = parseRunQuery(c.req.query());
        const runs = await hubos.runs.list(c.get('principal'), query);
        const last = runs.length === query.limit ? runs.at(-1) : undefined;
        return c.json({ runs, ...(last ? { nextCursor: encodeCursor(last.id) } : {}) });
      },
    )
    .get(
      '/runs/:id/steps',
      describeRoute({
        summary:
          "A run's finished model and tool calls, in order, with their timings, token usage and (a model call with a price) cost, and the run's token and cost totals",
        tags,
        params: runParam,
        errors: { ...noRun, ...storeAway },
      }),
      async (c) => {
        const steps = await hubos.runs.steps(c.req.param('id'), c.get('principal'));
        if (!steps) throw new HubosError('RUN_NOT_FOUND', `no run "${c.req.param('id')}"`);
        const prices = priceTable(hubos.options.kernel?.config.pricing);
        return c.json({ steps: pricedSteps(steps, prices), totals: runTotals(steps, prices) });
      },
    )
    .get('/runs/:id/steps/:seq', runStepDoc, runStepHandler(hubos))
    .delete(
      '/runs/:id',
      describeRoute({
        summary: 'Forget an ended run and its steps',
        tags,
        params: runParam,
        responses: { 204: 'Forgotten' },
        errors: { ...noRun, RUN_ACTIVE: 'The run has not ended: cancel it first', ...storeAway },
      }),
      async (c) => {
        await hubos.runs.delete(c.req.param('id'), c.get('principal'));
        return c.body(null, 204);
      },
    )
    .get(
      '/runs/:id',
      describeRoute({
        summary: 'Status and result of a run',
        tags,
        params: runParam,
        errors: { ...noRun, ...storeAway },
      }),
      async (c) => {
        const record = await hubos.runs.get(c.req.param('id'), c.get('principal'));
        if (!record) throw new HubosError('RUN_NOT_FOUND', `no run "${c.req.param('id')}"`);
        return c.json(record);
      },
    )
    .post(
      '/runs/:id/cancel',
      describeRoute({
        summary: 'Cancel a queued or running run, on whichever instance runs it; answers its final record',
        tags,
        params: runParam,
        errors: {
          ...noRun,
          RUN_ENDED: 'The run has already ended, or its instance has died (the run is then interrupted)',
          RUN_TIMEOUT: 'The instance running it did not confirm in time: ask again',
          ...storeAway,
        },
      }),
      async (c) => {
        const id = c.req.param('id');
        // Another caller's run does not exist for this one: looked up first, so it cannot be cancelled.
        const record = await hubos.runs.get(id, c.get('principal'));
        if (!record) throw new HubosError('RUN_NOT_FOUND', `no run "${id}"`);
        return c.json(await hubos.runs.cancel(id));
      },
    )
    .get(
      '/runs/:id/events',
      describeRoute({
        summary:
          "A run's events as SSE, from any instance: from the start, or after the Last-Event-ID header (or ?after=N); a run-end event with the final record closes it",
        tags,
        params: runParam,
        query: { after: 'Start after this event number (the Last-Event-ID header wins)' },
        sse: true,
        errors: { ...noRun, ...storeAway },
      }),
      async (c) => {
        const id = c.req.param('id');
        const record = await hubos.runs.get(id, c.get('principal'));
        if (!record) throw new HubosError('RUN_NOT_FOUND', `no run "${id}"`);
        const after = lastEventId(c.req.header('last-event-id') ?? c.req.query('after'));
        return streamSSE(c, async (stream) => {
          const gone = new AbortController();
          stream.onAbort(() => gone.abort());
          for await (const entry of hubos.runs.follow(id, after, gone.signal)) {
            if ('end' in entry) {
              await stream.writeSSE({ event: 'run-end', data: JSON.stringify(entry.end) });
              return;
            }
            await stream.writeSSE({
              id: String(entry.seq),
              event: entry.event.type,
              data: JSON.stringify(entry.event),
            });
          }
        });
      },
    );
}
