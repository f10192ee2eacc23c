import { type Context, Hono } from 'hono';
import { HubosError, type KernelView, type RunEngine, type RunRecord } from '../../core/index.ts';
import { didYouMean } from '../../core/internal.ts';
import { describeRoute, getHubOSHooks, type HubOSEnv, readBody, sseResponse } from '../hubos/server.ts';
import { STARS_ERROR_CODES } from './errors.ts';
import type { Stars } from './stars.ts';
import { TEAM_RUN_PREFIX } from './team-run-takeover.ts';

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

/**
 * Refuses (`STARS_ADMIN_ONLY`, 403) a caller without an admin key. Teams are shared by every key, so
 * changing their members or using their message board (which reaches every member's inbox, and so
 * every key's team runs) is the admins' (the keyless server's local caller is one).
 */
function requireAdmin(c: Context<HubOSEnv>, what: string): void {
  const principal = c.get('principal');
  if (principal.admin === true) return;
  throw STARS_ERROR_CODES.create(
    'STARS_ADMIN_ONLY',
    `${what} needs an admin API key (a server.apiKeys entry with admin: true); any key may list teams and run them`,
    { details: { principal: principal.id } },
  );
}

/**
 * The teams, mounted at `<api>/stars`: `GET /`, `POST /:name/run` (JSON, or SSE),
 * `GET|POST /:name/members`, `DELETE /:name/members/:agentId`, `GET|POST /:name/messages`
 * (a body without `to` broadcasts). Listing and running teams is every key's; joining, leaving and
 * the message board are admin keys' only (403 `STARS_ADMIN_ONLY`).
 */
/** A recorded team run's events, as `stars.stream` gives them; a failed end is thrown, as it would be. */
async function* followed(runs: RunEngine, runId: string, signal: AbortSignal): AsyncGenerator<unknown> {
  for await (const entry of runs.follow(runId, 0, signal)) {
    if (!('end' in entry)) yield entry.event;
    else if (entry.end.status === 'failed' || entry.end.status === 'interrupted') throw failure(entry.end);
  }
}

function failure(record: RunRecord): HubosError {
  const error = record.error ?? { code: 'RUN_FAILED', message: 'the team run failed' };
  return new HubosError(error.code, error.message);
}

/**
 * The Stars routes; given the kernel's run engine, each team run is a recorded run (`GET /api/runs/:id`),
 * ended `interrupted` if its instance dies (it does not resume: see `endOrphanedTeamRuns`).
 */
export function starsRoutes(teams: ReadonlyMap<string, Stars>, runs?: RunEngine): Hono<HubOSEnv> {
  const tags = ['stars'];
  const notFound = { 404: 'No such team or member' };
  const adminOnly = { 403: 'Not an admin key' };
  const team = (name: string): Stars => {
    const stars = teams.get(name);
    if (!stars)
      throw STARS_ERROR_CODES.create(
        'STARS_NOT_FOUND',
        `no Stars team "${name}"${didYouMean(name, teams.keys())} (teams: ${[...teams.keys()].join(', ') || 'none'})`,
      );
    return stars;
  };
  return new Hono<HubOSEnv>()
    .get('/', describeRoute({ summary: 'List Stars teams', tags }), (c) =>
      c.json({ stars: [...teams].map(([name, stars]) => ({ name, members: stars.members() })) }),
    )
    .post(
      '/:name/run',
      describeRoute({
        summary: 'Run a Stars team on a task (JSON, or SSE with Accept: text/event-stream)',
        tags,
        body: STARS_RUN_BODY,
        sse: true,
        responses: { 400: 'Invalid body', 404: 'No such team', 409: 'The team has no leader' },
      }),
      async (c) => {
        const stars = team(c.req.param('name'));
        const { task } = await readBody(c, STARS_RUN_BODY);
        const signal = c.req.raw.signal;
        const principal = c.get('principal');
        const sse = (c.req.header('accept') ?? '').includes('text/event-stream');
        if (!runs) {
          if (sse) return sseResponse(c, stars.stream(task, { signal, principal: principal.id }));
          return c.json(await stars.run(task, { signal, principal: principal.id }));
        }
        // Refused before a record exists, with its own status.
        if (!stars.leader)
          throw STARS_ERROR_CODES.create(
            'STARS_NO_LEADER',
            `stars "${stars.name}" has no leader: join one with role "leader" first`,
          );
        // A recorded run like an agent's: readable, followable and cancellable by id from any instance.
        // `resumable`: the instance that finds it orphaned asks the resumer, which says why it does not.
        const record = await runs.record(
          { name: `${TEAM_RUN_PREFIX}${stars.name}`, via: 'stars', principal, signal, resumable: true },
          async (ctx) => {
            let result: unknown;
            for await (const event of stars.stream(task, { signal: ctx.signal, principal: principal.id })) {
              if (event.type === 'stars-finish') result = event.result;
              ctx.onEvent(event as never);
            }
            return result;
          },
        );
        if (sse) return sseResponse(c, followed(runs, record.id, signal));
        const done = await runs.wait(record.id);
        if (done?.status === 'failed' || done?.status === 'interrupted') throw failure(done);
        return c.json(done?.result);
      },
    )
    .get(
      '/:name/members',
      describeRoute({ summary: "A team's members and roles", tags, responses: notFound }),
      (c) => c.json({ members: team(c.req.param('name')).members() }),
    )
    .post(
      '/:name/members',
      describeRoute({
        summary: 'Add a Cosmos agent to a team (admin keys only)',
        tags,
        body: STARS_JOIN_BODY,
        responses: {
          201: 'Joined',
          400: 'Invalid body',
          ...adminOnly,
          ...notFound,
          409: 'Already a member, or a second leader',
        },
      }),
      async (c) => {
        requireAdmin(c, "changing a team's members");
        const stars = team(c.req.param('name'));
        const { agentId, role } = await readBody(c, STARS_JOIN_BODY);
        return c.json(stars.join(agentId, role), 201);
      },
    )
    .delete(
      '/:name/members/:agentId',
      describeRoute({
        summary: 'Remove a member from a team (admin keys only)',
        tags,
        responses: { ...adminOnly, ...notFound },
      }),
      (c) => {
        requireAdmin(c, "changing a team's members");
        const agentId = c.req.param('agentId');
        if (!team(c.req.param('name')).leave(agentId))
          throw STARS_ERROR_CODES.create(
            'STARS_NOT_MEMBER',
            `"${agentId}" is not a member of "${c.req.param('name')}"`,
          );
        return c.json({ left: agentId });
      },
    )
    .get(
      '/:name/messages',
      describeRoute({
        summary: "A team's message history (admin keys only)",
        tags,
        responses: { ...adminOnly, ...notFound },
      }),
      (c) => {
        requireAdmin(c, "reading a team's messages");
        return c.json({ messages: team(c.req.param('name')).history() });
      },
    )
    .post(
      '/:name/messages',
      describeRoute({
        summary: 'Send a message between members (without `to`: broadcast; admin keys only)',
        tags,
        body: STARS_MESSAGE_BODY,
        responses: { 201: 'Sent', 400: 'Invalid body', ...adminOnly, ...notFound },
      }),
      async (c) => {
        requireAdmin(c, 'sending a team message');
        const stars = team(c.req.param('name'));
        const { from, to, content } = await readBody(c, STARS_MESSAGE_BODY);
        const message = to === undefined ? stars.broadcast(from, content) : stars.send(from, to, content);
        return c.json({ message }, 201);
      },
    );
}

/** Mounts the team routes on every HubOS built on this kernel, at `<api>/stars`. */
export function tapStarsRoutes(kernel: KernelView, teams: ReadonlyMap<string, Stars>): void {
  getHubOSHooks(kernel).routes.tap('stars', ({ api, mount }) =>
    mount(`${api}/stars`, starsRoutes(teams, kernel.runs)),
  );
}
