import { Hono } from 'hono';
import { eraseOwner } from '../erase-owner.ts';
import { HUBOS_ERROR_CODES } from '../errors.ts';
import type { HubOS } from '../hubos.ts';
import type { HubOSEnv } from '../kit/principal.ts';
import { describeRoute } from '../kit/route-doc.ts';

// Every id a principal can have: a key's configured `id` may hold `@` (an e-mail address).
const OWNER = /^[A-Za-z0-9._:~@-]{1,200}$/;

/**
 * `DELETE /owners/:id`: an admin erases everything one principal owns (its runs, sessions, approvals,
 * tasks, experiments); mounted under the API prefix.
 */
export function ownerRoutes(hubos: HubOS): Hono<HubOSEnv> {
  return new Hono<HubOSEnv>().delete(
    '/owners/:id',
    describeRoute({
      summary:
        'Erase everything a principal owns: its ended runs and their steps, its sessions and their messages (with every agent), its approvals, A2A tasks and experiments (an admin key only); answers what went',
      tags: ['runs'],
      params: { id: "The principal's id (an API key's `id`): letters, digits, . _ : ~ @ -" },
      errors: {
        INVALID_BODY: 'Not a principal id',
        FORBIDDEN: 'The key is not an admin key',
        STORE_FAILED: 'The store is away: try again shortly',
      },
    }),
    async (c) => {
      if (c.get('principal').admin !== true)
        throw HUBOS_ERROR_CODES.create(
          'FORBIDDEN',
          "erasing a principal's data needs an admin key (apiKeys: { admin: true })",
        );
      const owner = c.req.param('id');
      if (!OWNER.test(owner))
        throw HUBOS_ERROR_CODES.create(
          'INVALID_BODY',
          `"${owner.slice(0, 80)}" is not a principal id (letters, digits, . _ : ~ @ -)`,
        );
      // Every agent's sessions, those of agents since removed from the config too.
      return c.json(await eraseOwner(hubos.runs.store, owner));
    },
  );
}
