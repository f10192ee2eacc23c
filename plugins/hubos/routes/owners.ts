import type { Hono } from 'hono';
import { eraseOwner } from '../erase-owner.ts';
import { HUBOS_ERROR_CODES } from '../errors.ts';
import type { HubOS } from '../hubos.ts';

const OWNER = /^[A-Za-z0-9._:~-]{1,200}$/;

/** `DELETE /owners/:id`: an admin erases everything one principal owns (its runs, sessions, approvals, tasks). */
export function ownerRoutes(app: Hono, hubos: HubOS): void {
  const api = hubos.apiPrefix;
  hubos.document({
    method: 'delete',
    path: `${api}/owners/{id}`,
    summary:
      "Erase everything a principal owns: its ended runs and their steps, its sessions' messages, its approvals and A2A tasks (an admin key only); answers what went",
    tags: ['runs'],
    responses: { 400: 'Not a principal id', 403: 'The key is not an admin key' },
  });

  app.delete(`${api}/owners/:id`, async (c) => {
    if (c.get('principal').admin !== true)
      throw HUBOS_ERROR_CODES.create(
        'FORBIDDEN',
        "erasing a principal's data needs an admin key (apiKeys: { admin: true })",
      );
    const owner = c.req.param('id');
    if (!OWNER.test(owner))
      throw HUBOS_ERROR_CODES.create(
        'INVALID_BODY',
        `"${owner.slice(0, 80)}" is not a principal id (letters, digits, . _ : ~ -)`,
      );
    const agents = new Set([
      ...hubos.listAgents().map((agent) => agent.id),
      ...(hubos.options.kernel?.listAgents().map((agent) => agent.id) ?? []),
    ]);
    return c.json(await eraseOwner(hubos.runs.store, owner, [...agents]));
  });
}
