import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { readBody } from '../body.ts';
import { HttpError } from '../http-error.ts';
import type { HubOS, StarsLike } from '../hubos.ts';

export const STARS_RUN_BODY = {
  type: 'object',
  properties: { task: { type: 'string', minLength: 1, maxLength: 1_000_000 } },
  required: ['task'],
  additionalProperties: false,
} as const;

/** `GET /stars` and `POST /stars/:name/run` over whatever Stars teams are registered. */
export function starsRoutes(app: Hono, hubos: HubOS): void {
  const api = hubos.apiPrefix;
  hubos.document(
    { method: 'get', path: `${api}/stars`, summary: 'List Stars teams', tags: ['stars'] },
    {
      method: 'post',
      path: `${api}/stars/{name}/run`,
      summary: 'Run a Stars team on a task (JSON, or SSE with Accept: text/event-stream)',
      tags: ['stars'],
      body: STARS_RUN_BODY,
      sse: true,
      responses: { 400: 'Invalid body', 404: 'No such team' },
    },
  );
  app.get(`${api}/stars`, (c) => c.json({ stars: [...hubos.stars.keys()].map((name) => ({ name })) }));
  app.post(`${api}/stars/:name/run`, async (c) => {
    const name = c.req.param('name');
    const stars = hubos.stars.get(name);
    if (!stars)
      throw new HttpError(
        404,
        'STARS_NOT_FOUND',
        `no Stars team "${name}" (teams: ${[...hubos.stars.keys()].join(', ') || 'none'})`,
      );
    const { task } = await readBody<{ task: string }>(c, STARS_RUN_BODY);
    if ((c.req.header('accept') ?? '').includes('text/event-stream') && stars.stream) {
      return streamSSE(c, async (stream) => {
        for await (const event of (stars as Required<StarsLike>).stream(task, { signal: c.req.raw.signal })) {
          await stream.writeSSE({
            event: String((event as { type?: string }).type ?? 'message'),
            data: JSON.stringify(event),
          });
        }
      });
    }
    return c.json(await stars.run(task, { signal: c.req.raw.signal }));
  });
}
