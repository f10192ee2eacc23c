/**
 * A workflow run is a run of the engine: listed by `GET /api/runs` (via `workflow`), its events
 * followed by `GET /api/runs/:id/events` from any cursor, its steps and its cancel the engine's.
 */
import { describe, expect, it } from 'vitest';
import hubos from '../../../plugins/hubos/index.ts';
import { defineWorkflow } from '../../../plugins/workflows/index.ts';
import { bootWorkflows, wait } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
type Json = any;

let release: () => void = () => undefined;

const gated = defineWorkflow({
  name: 'gated',
  steps: [
    { id: 'first', kind: 'function', run: () => 'one' },
    {
      id: 'held',
      kind: 'function',
      run: (s) =>
        new Promise((resolve) => {
          release = () => resolve(`${s.steps.first} two`);
        }),
    },
  ],
});

const slow = defineWorkflow({
  name: 'slow',
  steps: [{ id: 'nap', kind: 'function', run: (_s, { signal }) => wait(60_000, signal) }],
});

async function serve() {
  const setup = await bootWorkflows([gated, slow], {}, { plugins: [hubos({ port: 0, rateLimit: false })] });
  const url = `${await setup.kernel.service('hubos').serve()}/api`;
  const post = (path: string, body: unknown = {}) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const get = async (path: string) => (await (await fetch(`${url}${path}`)).json()) as Json;
  return { ...setup, url, post, get };
}

/** The SSE frames of a response, to its end: `{ id, event, data }` each. */
async function frames(response: Response): Promise<{ id?: string; event: string; data: Json }[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((frame) => frame.includes('data:'))
    .map((frame) => {
      const field = (name: string) =>
        frame
          .split('\n')
          .find((line) => line.startsWith(`${name}:`))
          ?.slice(name.length + 1)
          .trim();
      const id = field('id');
      return {
        ...(id ? { id } : {}),
        event: field('event') ?? '',
        data: JSON.parse(field('data') ?? 'null'),
      };
    });
}

describe('workflow runs on the run engine', () => {
  it('lists a workflow run in GET /api/runs?via=workflow and streams its events by GET /api/runs/:id/events', async () => {
    const { url, post, get } = await serve();
    const started = await post('/workflows/gated/run', { async: true, runId: 'wf-1' });
    expect(started.status).toBe(202);
    await expect.poll(async () => (await get('/runs/wf-1')).status).toBe('running');

    // Followed from the start while it runs, to its end.
    const following = fetch(`${url}/runs/wf-1/events`, { headers: { accept: 'text/event-stream' } });
    await expect.poll(async () => (await get('/runs/wf-1/steps')).steps.length).toBe(1);
    release();
    const seen = await frames(await following);
    expect(seen.map((frame) => frame.event)).toEqual([
      'workflow-start',
      'workflow-step-start',
      'workflow-step-finish',
      'workflow-step-start',
      'workflow-step-finish',
      'workflow-finish',
      'run-end',
    ]);
    expect(seen.slice(0, -1).map((frame) => Number(frame.id))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(seen.at(-2)!.data.result).toMatchObject({ status: 'completed', output: 'one two' });
    expect(seen.at(-1)!.data).toMatchObject({ id: 'wf-1', status: 'completed', via: 'workflow' });

    // From a cursor: only what came after it.
    const after = await frames(await fetch(`${url}/runs/wf-1/events`, { headers: { 'last-event-id': '4' } }));
    expect(after.map((frame) => frame.event)).toEqual(['workflow-step-finish', 'workflow-finish', 'run-end']);

    // Listed with the other runs, by the surface that started it; its steps are the table's rows.
    const listed = await get('/runs?via=workflow');
    expect(listed.runs).toEqual([
      expect.objectContaining({ id: 'wf-1', agent: 'workflow:gated', via: 'workflow', status: 'completed' }),
    ]);
    expect((await get('/runs?via=rest')).runs).toEqual([]);
    const { steps } = await get('/runs/wf-1/steps');
    expect(steps.map((step: Json) => [step.kind, step.name, step.detail.output])).toEqual([
      ['step', 'first', 'one'],
      ['step', 'held', 'one two'],
    ]);
    expect(await get('/workflows/runs/wf-1')).toMatchObject({ status: 'completed', output: 'one two' });
  });

  it('cancels a workflow run through POST /api/runs/:id/cancel, as the workflow route does', async () => {
    const { post, get, workflows } = await serve();
    expect((await post('/workflows/slow/run', { async: true, runId: 'wf-2' })).status).toBe(202);
    await expect.poll(() => workflows.get('slow')!.active).toEqual(['wf-2']);
    const cancelled = await post('/runs/wf-2/cancel');
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toMatchObject({ id: 'wf-2', status: 'cancelled' });
    expect(await get('/workflows/runs/wf-2')).toMatchObject({
      status: 'cancelled',
      error: { code: 'RUN_CANCELLED' },
      steps: [{ id: 'nap', status: 'cancelled' }],
    });
    // Ended: the workflow route says so with its own code.
    const again = await post('/workflows/runs/wf-2/cancel');
    expect(again.status).toBe(409);
    expect(((await again.json()) as Json).error.code).toBe('WORKFLOW_RUN_NOT_RUNNING');
  });
});
