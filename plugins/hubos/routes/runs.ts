import type { Hono } from 'hono';
import { HUBOS_ERROR_CODES } from '../errors.ts';
import type { HubOS } from '../hubos.ts';

/** `GET /runs/:id` (status and result) and `POST /runs/:id/cancel`. */
export function runRoutes(app: Hono, hubos: HubOS): void {
  const api = hubos.apiPrefix;
  hubos.document(
    {
      method: 'get',
      path: `${api}/runs/{id}`,
      summary: 'Status and result of a run',
      tags: ['runs'],
      responses: { 404: 'No such run' },
    },
    {
      method: 'post',
      path: `${api}/runs/{id}/cancel`,
      summary: 'Cancel a running run',
      tags: ['runs'],
      responses: { 404: 'No such run', 409: 'The run has already ended' },
    },
  );

  app.get(`${api}/runs/:id`, async (c) => {
    const record = await hubos.runs.get(c.req.param('id'), c.get('principal'));
    if (!record) throw HUBOS_ERROR_CODES.create('RUN_NOT_FOUND', `no run "${c.req.param('id')}"`);
    return c.json(record);
  });

  app.post(`${api}/runs/:id/cancel`, async (c) => {
    const id = c.req.param('id');
    // Another caller's run does not exist for this one: looked up first, so it cannot be cancelled.
    const record = await hubos.runs.get(id, c.get('principal'));
    if (record && hubos.runs.cancel(id)) return c.json((await hubos.runs.wait(id))!);
    if (!record) throw HUBOS_ERROR_CODES.create('RUN_NOT_FOUND', `no run "${id}"`);
    throw HUBOS_ERROR_CODES.create('RUN_ENDED', `run "${id}" has already ended (${record.status})`);
  });
}
