import { Hono } from 'hono';
import { HubosError, sessionKey } from '../../../core/index.ts';
import type { HubOS } from '../hubos.ts';
import type { HubOSEnv } from '../kit/principal.ts';
import { describeRoute } from '../kit/route-doc.ts';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 500;

/**
 * `GET /runs/:id/session`: the whole stored conversation a run belongs to, a page at a time — every
 * message, those a compaction summarized for the model included. Whoever may read the run may read
 * its session. Mounted under the API prefix.
 */
export function runSessionRoutes(hubos: HubOS): Hono<HubOSEnv> {
  return new Hono<HubOSEnv>().get(
    '/runs/:id/session',
    describeRoute({
      summary:
        "The stored conversation of a run's session, every message in order (a page at a time): what the model was sent is in the run's steps",
      tags: ['runs'],
      params: { id: "The run's id" },
      query: {
        offset: 'The first message (0-based; default: the last page)',
        limit: `Messages per page (1–${MAX_LIMIT}, default ${DEFAULT_LIMIT})`,
      },
      errors: {
        RUN_NOT_FOUND: 'No such run (or one of another key)',
        RUN_QUERY_INVALID: 'An offset or limit that is not a whole number in range',
        STORE_FAILED: 'The store is away: try again shortly',
      },
    }),
    async (c) => {
      const id = c.req.param('id');
      const record = await hubos.runs.get(id, c.get('principal'));
      if (!record) throw new HubosError('RUN_NOT_FOUND', `no run "${id}"`);
      const limit = wholeNumber(c.req.query('limit'), 'limit', 1, MAX_LIMIT) ?? DEFAULT_LIMIT;
      const offset = wholeNumber(c.req.query('offset'), 'offset', 0, Number.MAX_SAFE_INTEGER);
      const sessions = hubos.options.kernel?.sessions;
      // Read a page at a time from the table: a long session costs what one page does.
      const page =
        record.sessionId === undefined || !sessions
          ? { total: 0, offset: 0, messages: [] }
          : // Stored under its owner's key, as the run engine named it for the agent.
            await sessions.history(record.agent, sessionKey(record.owner ?? 'local', record.sessionId), {
              ...(offset !== undefined ? { offset } : {}),
              limit,
            });
      return c.json({
        agent: record.agent,
        ...(record.sessionId !== undefined ? { sessionId: record.sessionId } : {}),
        total: page.total,
        offset: page.offset,
        messages: page.messages,
      });
    },
  );
}

function wholeNumber(text: string | undefined, name: string, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max)
    throw new HubosError(
      'RUN_QUERY_INVALID',
      `${name} must be a whole number from ${min} to ${max === Number.MAX_SAFE_INTEGER ? 'the message count' : max}, got "${text.slice(0, 40)}"`,
    );
  return value;
}
