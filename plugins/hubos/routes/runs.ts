import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { encodeCursor, HubosError, parseRunQuery } from '../../../core/index.ts';
import type { HubOS } from '../hubos.ts';

/** A client resuming says the last event number it saw; anything else starts from the first. */
function lastEventId(value: string | undefined): number {
  return value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : 0;
}

/**
 * `GET /runs` (the caller's runs, newest first, by pages), `GET /runs/:id` (status and result),
 * `GET /runs/:id/steps`, `GET /runs/:id/events` (SSE, resumable), `POST /runs/:id/cancel` and
 * `DELETE /runs/:id`, for a run on any instance of the service.
 */
export function runRoutes(app: Hono, hubos: HubOS): void {
  const api = hubos.apiPrefix;
  hubos.document(
    {
      method: 'get',
      path: `${api}/runs`,
      summary:
        "The caller's runs (an admin key's: everyone's), newest first: ?agent, status, via, sessionId, since, until (ISO 8601 or ms), limit (1-200, default 50), cursor (the previous page's nextCursor)",
      tags: ['runs'],
      responses: { 400: 'A filter, limit or cursor that makes no sense' },
    },
    {
      method: 'get',
      path: `${api}/runs/{id}/steps`,
      summary: "A run's finished model and tool calls, in order, with their timings and token usage",
      tags: ['runs'],
      responses: { 404: 'No such run' },
    },
    {
      method: 'delete',
      path: `${api}/runs/{id}`,
      summary: 'Forget an ended run and its steps',
      tags: ['runs'],
      responses: { 404: 'No such run', 409: 'The run has not ended: cancel it first' },
    },
    {
      method: 'get',
      path: `${api}/runs/{id}`,
      summary: 'Status and result of a run',
      tags: ['runs'],
      responses: { 404: 'No such run' },
    },
    {
      method: 'get',
      path: `${api}/runs/{id}/events`,
      summary:
        "A run's events as SSE, from any instance: from the start, or after the Last-Event-ID header (or ?after=N); a run-end event with the final record closes it",
      tags: ['runs'],
      sse: true,
      responses: { 404: 'No such run' },
    },
    {
      method: 'post',
      path: `${api}/runs/{id}/cancel`,
      summary: 'Cancel a queued or running run, on whichever instance runs it',
      tags: ['runs'],
      responses: {
        404: 'No such run',
        409: 'The run has already ended, or runs on an instance this one cannot reach (no shared bus)',
      },
    },
  );

  app.get(`${api}/runs`, async (c) => {
    const query = parseRunQuery(c.req.query());
    const runs = await hubos.runs.list(c.get('principal'), query);
    const last = runs.length === query.limit ? runs.at(-1) : undefined;
    return c.json({ runs, ...(last ? { nextCursor: encodeCursor(last.id) } : {}) });
  });

  app.get(`${api}/runs/:id/steps`, async (c) => {
    const steps = await hubos.runs.steps(c.req.param('id'), c.get('principal'));
    if (!steps) throw new HubosError('RUN_NOT_FOUND', `no run "${c.req.param('id')}"`);
    return c.json({ steps });
  });

  app.delete(`${api}/runs/:id`, async (c) => {
    await hubos.runs.delete(c.req.param('id'), c.get('principal'));
    return c.body(null, 204);
  });

  app.get(`${api}/runs/:id`, async (c) => {
    const record = await hubos.runs.get(c.req.param('id'), c.get('principal'));
    if (!record) throw new HubosError('RUN_NOT_FOUND', `no run "${c.req.param('id')}"`);
    return c.json(record);
  });

  app.post(`${api}/runs/:id/cancel`, async (c) => {
    const id = c.req.param('id');
    // Another caller's run does not exist for this one: looked up first, so it cannot be cancelled.
    const record = await hubos.runs.get(id, c.get('principal'));
    if (!record) throw new HubosError('RUN_NOT_FOUND', `no run "${id}"`);
    return c.json(await hubos.runs.cancel(id));
  });

  app.get(`${api}/runs/:id/events`, async (c) => {
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
  });
}
