import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { type Agent, HubosError, type Principal, type RunRecord } from '../../../core/index.ts';
import { HUBOS_ERROR_CODES } from '../errors.ts';
import type { HubOS } from '../hubos.ts';
import type { HubOSEnv } from '../kit/principal.ts';
import { readBody } from '../kit/read-body.ts';
import { describeRoute } from '../kit/route-doc.ts';

export const AGAIN_BODY = {
  type: 'object',
  properties: {
    input: {
      type: 'string',
      minLength: 1,
      maxLength: 1_000_000,
      description: "The user message in place of the run's own (default: the run's input).",
    },
    model: {
      type: 'string',
      minLength: 1,
      maxLength: 300,
      description:
        "The model to run on, one GET /runs/models lists (default: the run's own model, else its agent's).",
    },
  },
  additionalProperties: false,
} as const;

interface AgainBody {
  input?: string;
  model?: string;
}

const tags = ['runs'];

/**
 * The models a caller's run may be started again on: those the server's agents it may use run on.
 * Only these: a caller cannot make the server spend on a model nobody configured.
 */
export function runModels(hubos: HubOS, principal: Principal): string[] {
  return [...new Set(hubos.listAgents(principal).map((agent) => agent.modelRef))].sort();
}

/**
 * `POST /runs/:id/again` (the same agent on the run's input, or an edited one, or another model, as a
 * new run in the background) and `GET /runs/models` (the models it may use); mounted under the API
 * prefix, before the run routes (`/runs/models` is not a run's id).
 */
export function runAgainRoutes(hubos: HubOS): Hono<HubOSEnv> {
  return new Hono<HubOSEnv>()
    .get(
      '/runs/models',
      describeRoute({
        summary:
          "The models a run may be started again on (POST /runs/:id/again's model): the served agents'",
        tags,
      }),
      (c) => c.json({ models: runModels(hubos, c.get('principal')) }),
    )
    .post(
      '/runs/:id/again',
      describeRoute({
        summary:
          "Run an agent's run again as a new run (202, in the background like ?async=true): unchanged, with another input, or on another model",
        tags,
        params: { id: 'The run to run again' },
        body: AGAIN_BODY,
        responses: { 202: "The new run's record (its againOf names the run it repeats)" },
        errors: {
          INVALID_JSON: 'The body is not JSON',
          UNSUPPORTED_MEDIA_TYPE: 'A body not sent as application/json',
          INVALID_BODY: 'The body does not fit the schema (the message names the field)',
          RUN_NOT_FOUND: "No such run (another key's runs do not exist for this one)",
          AGENT_NOT_FOUND: "The run's agent is no longer served (or is hidden from this key)",
          MODEL_NOT_ALLOWED: 'A model no served agent runs on (the message lists those that may be used)',
          RUN_NOT_REPEATABLE: "The run is not an agent's (a Stars team's, a workflow's), or kept no input",
          STORE_FAILED: 'The store is away: try again shortly',
        },
      }),
      async (c) => {
        const principal = c.get('principal');
        const body = await readBody<AgainBody>(c, AGAIN_BODY);
        const id = c.req.param('id');
        const run = await hubos.runs.get(id, principal);
        if (!run) throw new HubosError('RUN_NOT_FOUND', `no run "${id}"`);
        const agent = repeatable(hubos, run, principal);
        const input = body.input ?? run.input;
        if (!input?.trim())
          throw HUBOS_ERROR_CODES.create(
            'RUN_NOT_REPEATABLE',
            `run "${id}" kept no input to run again: give one in the body's "input"`,
          );
        const model = allowedModel(hubos, principal, body.model ?? run.model);
        // Run as it was asked: for the same end user (whose memory it reads) and within its budget.
        const asked = {
          ...(model !== undefined && model !== agent.modelRef ? { model } : {}),
          ...(run.options?.budget !== undefined ? { budget: run.options.budget } : {}),
          ...(run.options?.userId !== undefined ? { userId: run.options.userId } : {}),
        };
        const record = await hubos.runs.enqueue(agent, input, {
          principal,
          // A conversation of its own: the repeat neither sees nor adds to the run's session.
          sessionId: `again:${randomUUID()}`,
          via: 'rest',
          againOf: run.id,
          ...(Object.keys(asked).length > 0 ? { run: asked } : {}),
        });
        return c.json(record, 202);
      },
    );
}

/** The served agent that ran `run`; RUN_NOT_REPEATABLE for a run that was not one agent's turn. */
function repeatable(hubos: HubOS, run: RunRecord, principal: Principal): Agent {
  // Stars teams and workflows name their runs `stars:<team>`, `workflow:<name>`; agent names have no colon.
  if (run.agent.includes(':'))
    throw HUBOS_ERROR_CODES.create(
      'RUN_NOT_REPEATABLE',
      `run "${run.id}" is a run of ${run.agent}, not of an agent: start the team or the workflow again instead`,
    );
  return hubos.agent(run.agent, principal);
}

/** `model` when a served agent runs on it; MODEL_NOT_ALLOWED naming those that may be used. */
function allowedModel(hubos: HubOS, principal: Principal, model: string | undefined): string | undefined {
  if (model === undefined) return undefined;
  const allowed = runModels(hubos, principal);
  if (!allowed.includes(model))
    throw HUBOS_ERROR_CODES.create(
      'MODEL_NOT_ALLOWED',
      `model "${model.slice(0, 120)}" is not one the served agents run on: use one of ${allowed.join(', ') || 'none'} (GET /runs/models lists them)`,
      { details: { allowed } },
    );
  return model;
}
