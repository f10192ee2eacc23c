import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { HubosError } from '../../../core/index.ts';
import { readBody } from '../body.ts';
import { HttpError } from '../http-error.ts';
import type { HubOS, StarsLike } from '../hubos.ts';
import { sseEventWriter } from '../sse-event.ts';

export const STARS_RUN_BODY = {
  type: 'object',
  properties: { task: { type: 'string', minLength: 1, maxLength: 1_000_000 } },
  required: ['task'],
  additionalProperties: false,
} as const;

export const STARS_JOIN_BODY = {
  type: 'object',
  properties: {
    agentId: { type: 'string', minLength: 1, description: 'A Cosmos agent id.' },
    role: { type: 'string', enum: ['leader', 'worker'] },
  },
  required: ['agentId', 'role'],
  additionalProperties: false,
} as const;

export const STARS_MESSAGE_BODY = {
  type: 'object',
  properties: {
    from: { type: 'string', minLength: 1, description: 'The sending member.' },
    to: { type: 'string', minLength: 1, description: 'The recipient member; omitted: a broadcast.' },
    content: { type: 'string', minLength: 1, maxLength: 1_000_000 },
  },
  required: ['from', 'content'],
  additionalProperties: false,
} as const;

/** A team with membership and messages (the stars plugin's `Stars`); the routes beyond `run` need these. */
export interface StarsTeamLike extends StarsLike {
  members(): unknown[];
  join(agentId: string, role: 'leader' | 'worker'): unknown;
  leave(agentId: string): boolean;
  history(): unknown[];
  send(from: string, to: string, content: string): unknown;
  broadcast(from: string, content: string): unknown;
}

/** The HTTP status of each Stars error (in `error.details.stars`), answered with that code. */
const STATUS_BY_STARS_CODE: Record<string, ContentfulStatusCode> = {
  STARS_NOT_MEMBER: 404,
  STARS_AGENT_NOT_FOUND: 404,
  STARS_MEMBER_EXISTS: 409,
  STARS_LEADER_EXISTS: 409,
  STARS_NO_LEADER: 409,
  STARS_INVALID: 400,
};

function httpError(error: unknown): unknown {
  const code = HubosError.is(error) ? error.details.stars : undefined;
  if (typeof code === 'string' && STATUS_BY_STARS_CODE[code])
    return new HttpError(STATUS_BY_STARS_CODE[code], code, (error as Error).message);
  return error;
}

async function mapped<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw httpError(error);
  }
}

function isTeam(stars: StarsLike): stars is StarsTeamLike {
  const team = stars as Partial<StarsTeamLike>;
  return (
    typeof team.members === 'function' &&
    typeof team.join === 'function' &&
    typeof team.history === 'function'
  );
}

/**
 * Over the registered Stars teams: `GET /stars`, `POST /stars/:name/run` (JSON, or SSE), and for
 * teams with membership `GET|POST /stars/:name/members`, `DELETE /stars/:name/members/:agentId`,
 * `GET|POST /stars/:name/messages` (a body without `to` broadcasts).
 */
export function starsRoutes(app: Hono, hubos: HubOS): void {
  const api = hubos.apiPrefix;
  const notFound = { 404: 'No such team or member' };
  hubos.document(
    { method: 'get', path: `${api}/stars`, summary: 'List Stars teams', tags: ['stars'] },
    {
      method: 'post',
      path: `${api}/stars/{name}/run`,
      summary: 'Run a Stars team on a task (JSON, or SSE with Accept: text/event-stream)',
      tags: ['stars'],
      body: STARS_RUN_BODY,
      sse: true,
      responses: { 400: 'Invalid body', 404: 'No such team', 409: 'The team has no leader' },
    },
    {
      method: 'get',
      path: `${api}/stars/{name}/members`,
      summary: "A team's members and roles",
      tags: ['stars'],
      responses: notFound,
    },
    {
      method: 'post',
      path: `${api}/stars/{name}/members`,
      summary: 'Add a Cosmos agent to a team',
      tags: ['stars'],
      body: STARS_JOIN_BODY,
      responses: {
        201: 'Joined',
        400: 'Invalid body',
        ...notFound,
        409: 'Already a member, or a second leader',
      },
    },
    {
      method: 'delete',
      path: `${api}/stars/{name}/members/{agentId}`,
      summary: 'Remove a member from a team',
      tags: ['stars'],
      responses: notFound,
    },
    {
      method: 'get',
      path: `${api}/stars/{name}/messages`,
      summary: "A team's message history",
      tags: ['stars'],
      responses: notFound,
    },
    {
      method: 'post',
      path: `${api}/stars/{name}/messages`,
      summary: 'Send a message between members (without `to`: broadcast)',
      tags: ['stars'],
      body: STARS_MESSAGE_BODY,
      responses: { 201: 'Sent', 400: 'Invalid body', ...notFound },
    },
  );

  const found = (name: string): StarsLike => {
    const stars = hubos.stars.get(name);
    if (!stars)
      throw new HttpError(
        404,
        'STARS_NOT_FOUND',
        `no Stars team "${name}" (teams: ${[...hubos.stars.keys()].join(', ') || 'none'})`,
      );
    return stars;
  };
  const team = (name: string): StarsTeamLike => {
    const stars = found(name);
    if (!isTeam(stars))
      throw new HttpError(
        404,
        'STARS_NOT_FOUND',
        `Stars team "${name}" has no members or messages to manage`,
      );
    return stars;
  };

  app.get(`${api}/stars`, (c) =>
    c.json({
      stars: [...hubos.stars].map(([name, stars]) => ({
        name,
        ...(isTeam(stars) ? { members: stars.members() } : {}),
      })),
    }),
  );
  app.post(`${api}/stars/:name/run`, async (c) => {
    const stars = found(c.req.param('name'));
    const { task } = await readBody<{ task: string }>(c, STARS_RUN_BODY);
    const signal = c.req.raw.signal;
    if ((c.req.header('accept') ?? '').includes('text/event-stream') && stars.stream) {
      // The first event is awaited before answering, so an error before the run starts keeps its status.
      const events = stars.stream(task, { signal })[Symbol.asyncIterator]();
      const first = await mapped(() => events.next());
      return streamSSE(c, async (stream) => {
        const write = sseEventWriter(stream);
        try {
          for (let next = first; !next.done; next = await events.next()) await write(next.value);
        } catch (error) {
          await write({ type: 'error', error: { message: (error as Error).message } });
        }
      });
    }
    return c.json(await mapped(() => stars.run(task, { signal })));
  });
  app.get(`${api}/stars/:name/members`, (c) => c.json({ members: team(c.req.param('name')).members() }));
  app.post(`${api}/stars/:name/members`, async (c) => {
    const stars = team(c.req.param('name'));
    const { agentId, role } = await readBody<{ agentId: string; role: 'leader' | 'worker' }>(
      c,
      STARS_JOIN_BODY,
    );
    return c.json(await mapped(() => stars.join(agentId, role)), 201);
  });
  app.delete(`${api}/stars/:name/members/:agentId`, (c) => {
    const agentId = c.req.param('agentId');
    if (!team(c.req.param('name')).leave(agentId))
      throw new HttpError(
        404,
        'STARS_NOT_MEMBER',
        `"${agentId}" is not a member of "${c.req.param('name')}"`,
      );
    return c.json({ left: agentId });
  });
  app.get(`${api}/stars/:name/messages`, (c) => c.json({ messages: team(c.req.param('name')).history() }));
  app.post(`${api}/stars/:name/messages`, async (c) => {
    const stars = team(c.req.param('name'));
    const { from, to, content } = await readBody<{ from: string; to?: string; content: string }>(
      c,
      STARS_MESSAGE_BODY,
    );
    const message = await mapped(() =>
      to === undefined ? stars.broadcast(from, content) : stars.send(from, to, content),
    );
    return c.json({ message }, 201);
  });
}
