import { Hono } from 'hono';
import { ExperimentStore, HubosError, type Principal, type RecordCursor } from '../../../core/index.ts';
import type { HubOS } from '../hubos.ts';
import type { HubOSEnv } from '../kit/principal.ts';
import { describeRoute } from '../kit/route-doc.ts';

const DEFAULT_PAGE = 50;
const MAX_PAGE = 200;
// An experiment's id is a UUIDv7; anything that could be a record key of this shape is looked up.
const ID = /^[A-Za-z0-9._:-]{1,128}$/;
const NAME = /^[A-Za-z0-9._:~-]{1,200}$/;

const tags = ['experiments'];
const experimentParam = { id: 'The experiment id (GET /experiments, `hubos eval` and evaluate() give it)' };
const noExperiment = {
  EXPERIMENT_NOT_FOUND: "No such experiment (another key's experiments do not exist for this one)",
};
const storeAway = { STORE_FAILED: 'The store is away: try again shortly' };

/** Only the caller's own, unless it is an admin key (then undefined: everyone's). */
const ownerOf = (principal: Principal) => (principal.admin ? undefined : principal.id);

function invalid(message: string): HubosError {
  return new HubosError('EXPERIMENT_QUERY_INVALID', `cannot list experiments: ${message}`);
}

/** The cursor of the page after one: opaque to the caller, the store's own position inside. */
export function encodeExperimentCursor(cursor: RecordCursor): string {
  return Buffer.from(`e1:${cursor.time}:${cursor.key}`).toString('base64url');
}

function decodeExperimentCursor(cursor: string): RecordCursor {
  const text = /^[A-Za-z0-9_-]{1,400}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const match = /^e1:(-?\d{1,16}):(.+)$/.exec(text);
  if (!match || !ID.test(match[2]!))
    throw invalid(
      `after "${cursor.slice(0, 80)}" is not a cursor this server gave: pass the \`next\` of the previous page as it came`,
    );
  return { time: Number(match[1]), key: match[2]! };
}

/** `?agent=&limit=&after=`; anything that makes no sense names the parameter and what it may be. */
function parseExperimentQuery(params: Record<string, string>) {
  let limit = DEFAULT_PAGE;
  if (params.limit !== undefined) {
    limit = /^\d{1,4}$/.test(params.limit) ? Number(params.limit) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_PAGE))
      throw invalid(`limit "${params.limit.slice(0, 80)}" is not a whole number from 1 to ${MAX_PAGE}`);
  }
  const agent = params.agent;
  if (agent !== undefined && !NAME.test(agent))
    throw invalid(`agent "${agent.slice(0, 80)}" is not an agent's name (letters, digits, . _ : ~ -)`);
  const after = params.after !== undefined ? decodeExperimentCursor(params.after) : undefined;
  return { limit, agent, after };
}

/** An id this route looks up; a malformed one is no experiment (as another key's is not). */
function experimentId(id: string): string {
  if (!ID.test(id)) throw new HubosError('EXPERIMENT_NOT_FOUND', `no experiment "${id.slice(0, 80)}"`);
  return id;
}

/**
 * `GET /experiments` (the caller's evaluations of datasets, newest first, by pages),
 * `GET /experiments/:id` (one with its cases) and `DELETE /experiments/:id`; mounted under the API prefix.
 */
export function experimentRoutes(hubos: HubOS): Hono<HubOSEnv> {
  // The store the runs are kept in: evaluate() keeps an experiment beside the runs of its cases.
  const experiments = new ExperimentStore(hubos.runs.store);
  return new Hono<HubOSEnv>()
    .get(
      '/experiments',
      describeRoute({
        summary:
          "The caller's experiments (an admin key's: everyone's), newest first, a page at a time; each with its summary, without its cases",
        tags,
        query: {
          agent: 'Only the experiments of this agent',
          limit: `Experiments per page, 1-${MAX_PAGE} (default ${DEFAULT_PAGE})`,
          after: "The previous page's `next`",
        },
        errors: {
          EXPERIMENT_QUERY_INVALID: 'An agent, limit or cursor that makes no sense (the message names it)',
          ...storeAway,
        },
      }),
      async (c) => {
        const query = parseExperimentQuery(c.req.query());
        const page = await experiments.list({ ...query, owner: ownerOf(c.get('principal')) });
        // A full page may have more after it; the store says so only when there are.
        return c.json({
          experiments: page.experiments,
          ...(page.next ? { next: encodeExperimentCursor(page.next) } : {}),
        });
      },
    )
    .get(
      '/experiments/:id',
      describeRoute({
        summary:
          "One experiment and its cases in the dataset's order: each case's input, output, run id, status, scores with their reasons",
        tags,
        params: experimentParam,
        errors: { ...noExperiment, ...storeAway },
      }),
      async (c) => {
        const id = experimentId(c.req.param('id'));
        const experiment = await experiments.get(id, ownerOf(c.get('principal')));
        if (!experiment) throw new HubosError('EXPERIMENT_NOT_FOUND', `no experiment "${id}"`);
        return c.json({ experiment, cases: await experiments.cases(id) });
      },
    )
    .delete(
      '/experiments/:id',
      describeRoute({
        summary: 'Forget an experiment and its cases (the runs of its cases stay, as runs)',
        tags,
        params: experimentParam,
        responses: { 204: 'Forgotten' },
        errors: { ...noExperiment, ...storeAway },
      }),
      async (c) => {
        const id = experimentId(c.req.param('id'));
        if (!(await experiments.delete(id, ownerOf(c.get('principal')))))
          throw new HubosError('EXPERIMENT_NOT_FOUND', `no experiment "${id}"`);
        return c.body(null, 204);
      },
    );
}
