import type { Context } from 'hono';
import { HubosError } from '../../../core/index.ts';
import type { HubOS } from '../hubos.ts';
import type { HubOSEnv } from '../kit/principal.ts';
import { describeRoute } from '../kit/route-doc.ts';

/** A step's number: a whole number from 1 (as `GET /runs/:id/steps` lists them). */
function parseSeq(text: string): number {
  const seq = /^[1-9]\d{0,8}$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isNaN(seq))
    throw new HubosError(
      'STEP_SEQ_INVALID',
      `"${text.slice(0, 40)}" is not a step number: use a step's seq (a whole number from 1) from GET /runs/:id/steps`,
    );
  return seq;
}

/** The doc of `GET /runs/:id/steps/:seq`. */
export const runStepDoc = describeRoute({
  summary:
    "One step of a run with its full payload: a tool call's input, output or error; a model call's answer and the messages it was sent (as far as the run keeps them)",
  tags: ['runs'],
  params: {
    id: 'The run id (202 answers of ?async=true runs and GET /runs give it)',
    seq: "The step's seq, from GET /runs/:id/steps",
  },
  errors: {
    STEP_SEQ_INVALID: 'A seq that is not a whole number from 1',
    RUN_NOT_FOUND: "No such run (another key's runs do not exist for this one)",
    STEP_NOT_FOUND: 'The run has no step of that seq',
    STORE_FAILED: 'The store is away: try again shortly',
  },
});

/** `GET /runs/:id/steps/:seq` → `{ step, payload }`. */
export function runStepHandler(hubos: HubOS) {
  return async (c: Context<HubOSEnv>) => {
    const seq = parseSeq(c.req.param('seq') ?? '');
    return c.json(await hubos.runs.step(c.req.param('id') ?? '', seq, c.get('principal')));
  };
}
