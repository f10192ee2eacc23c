import { describe, expect, it } from 'vitest';
import hubos from '../../../plugins/hubos/index.ts';
import { defineWorkflow } from '../../../plugins/workflows/index.ts';
import { bootWorkflows, wait } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
type Json = any;

const greet = defineWorkflow<{ name: string }>({
  name: 'greet',
  description: 'Greets someone, then shouts it.',
  inputSchema: {
    type: 'object',
    properties: { name: { type: 'string' } },
    required: ['name'],
    additionalProperties: false,
  },
  steps: [
    { id: 'hello', kind: 'agent', agent: 'writer', input: 'Greet {{input.name}}' },
    {
      id: 'both',
      kind: 'parallel',
      steps: [
        { id: 'loud', kind: 'function', run: (s) => String(s.steps.hello).toUpperCase() },
        { id: 'sum', kind: 'tool', tool: 'add', input: { a: 1, b: 2 } },
      ],
    },
  ],
  output: (s) => s.steps.loud,
});

const slow = defineWorkflow({
  name: 'slow',
  steps: [{ id: 'nap', kind: 'function', run: (_s, { signal }) => wait(60_000, signal) }],
});

async function serve(script: string[] = ['Hello Ada']) {
  const setup = await bootWorkflows(
    [greet, slow],
    { writer: script },
    { plugins: [hubos({ port: 0, rateLimit: false })] },
  );
  const url = await setup.kernel.service('hubos').serve();
  return { ...setup, url };
}

const post = (url: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });

const errorCode = async (response: Response) => ((await response.json()) as Json).error.code;

describe('workflow routes', () => {
  it('lists workflows and describes one as data a page can draw', async () => {
    const { url } = await serve();
    const list = (await (await fetch(`${url}/api/workflows`)).json()) as Json;
    expect(list.workflows.map((w: Json) => [w.name, w.steps])).toEqual([
      ['greet', 2],
      ['slow', 1],
    ]);
    expect(list.workflows[0].description).toBe('Greets someone, then shouts it.');
    const shape = (await (await fetch(`${url}/api/workflows/greet`)).json()) as Json;
    expect(shape.inputSchema.required).toEqual(['name']);
    expect(shape.steps).toEqual([
      { id: 'hello', kind: 'agent', agent: 'writer' },
      {
        id: 'both',
        kind: 'parallel',
        steps: [
          { id: 'loud', kind: 'function' },
          { id: 'sum', kind: 'tool', tool: 'add' },
        ],
      },
    ]);
    const missing = await fetch(`${url}/api/workflows/nope`);
    expect(missing.status).toBe(404);
    expect(await errorCode(missing)).toBe('WORKFLOW_NOT_FOUND');
    const openapi = (await (await fetch(`${url}/api/openapi.json`)).json()) as Json;
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining(['/api/workflows/{name}/run', '/api/workflows/runs/{id}/resume']),
    );
  });

  it('runs one and answers the result as JSON; the run is then found by id and in the list', async () => {
    const { url } = await serve();
    const response = await post(`${url}/api/workflows/greet/run`, { input: { name: 'Ada' } });
    expect(response.status).toBe(200);
    const result = (await response.json()) as Json;
    expect(result).toMatchObject({ status: 'completed', output: 'HELLO ADA', workflow: 'greet' });
    expect(result.steps.map((s: Json) => s.id).sort()).toEqual(['both', 'hello', 'loud', 'sum']);
    const fetched = (await (await fetch(`${url}/api/workflows/runs/${result.runId}`)).json()) as Json;
    expect(fetched.status).toBe('completed');
    const runs = (await (await fetch(`${url}/api/workflows/greet/runs`)).json()) as Json;
    expect(runs.runs.map((r: Json) => r.runId)).toEqual([result.runId]);
  });

  it('streams the run as Server-Sent Events', async () => {
    const { url } = await serve();
    const response = await post(
      `${url}/api/workflows/greet/run`,
      { input: { name: 'Ada' } },
      { accept: 'text/event-stream' },
    );
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const text = await response.text();
    const events = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(events[0]).toBe('workflow-start');
    expect(events.at(-1)).toBe('workflow-finish');
    expect(events).toContain('workflow-step-start');
    expect(events).toContain('text-delta');
    const deltas = [...text.matchAll(/^data: (.+)$/gm)]
      .map((m) => JSON.parse(m[1]!))
      .filter((e) => e.type === 'text-delta');
    expect(deltas.every((e) => e.stepId === 'hello')).toBe(true);
  });

  it('answers each error with its status', async () => {
    const { url } = await serve();
    const badInput = await post(`${url}/api/workflows/greet/run`, { input: { name: 42 } });
    expect(badInput.status).toBe(400);
    expect(await errorCode(badInput)).toBe('WORKFLOW_INPUT_INVALID');
    const badStreamInput = await post(
      `${url}/api/workflows/greet/run`,
      { input: {} },
      { accept: 'text/event-stream' },
    );
    expect(badStreamInput.status).toBe(400);
    const badBody = await post(`${url}/api/workflows/greet/run`, { inputs: {} });
    expect(badBody.status).toBe(400);
    expect(await errorCode(badBody)).toBe('INVALID_BODY');
    expect((await post(`${url}/api/workflows/greet/run`, '{not json')).status).toBe(400);
    expect((await post(`${url}/api/workflows/nope/run`, { input: {} })).status).toBe(404);
    expect(await errorCode(await fetch(`${url}/api/workflows/runs/nope`))).toBe('WORKFLOW_RUN_NOT_FOUND');
    expect((await post(`${url}/api/workflows/runs/nope/resume`)).status).toBe(404);
    expect((await post(`${url}/api/workflows/runs/nope/cancel`)).status).toBe(404);
    const done = (await (
      await post(`${url}/api/workflows/greet/run`, { input: { name: 'Ada' }, runId: 'r-1' })
    ).json()) as Json;
    expect(done.runId).toBe('r-1');
    const taken = await post(`${url}/api/workflows/greet/run`, { input: { name: 'Ada' }, runId: 'r-1' });
    expect(taken.status).toBe(409);
    const finished = await post(`${url}/api/workflows/runs/r-1/resume`);
    expect(finished.status).toBe(409);
    expect(await errorCode(finished)).toBe('WORKFLOW_RUN_FINISHED');
    const notRunning = await post(`${url}/api/workflows/runs/r-1/cancel`);
    expect(notRunning.status).toBe(409);
  });

  it('starts a run in the background (202), cancels it, and resumes it to the end', async () => {
    const { url, workflows } = await serve();
    const started = await post(`${url}/api/workflows/slow/run`, { async: true });
    expect(started.status).toBe(202);
    const { runId } = (await started.json()) as Json;
    await expect.poll(() => workflows.get('slow')!.active).toEqual([runId]);
    const busy = await post(`${url}/api/workflows/runs/${runId}/resume`);
    expect(busy.status).toBe(409);
    expect(await errorCode(busy)).toBe('WORKFLOW_RUN_ACTIVE');
    const cancel = await post(`${url}/api/workflows/runs/${runId}/cancel`);
    expect(cancel.status).toBe(200);
    await expect
      .poll(async () => ((await (await fetch(`${url}/api/workflows/runs/${runId}`)).json()) as Json).status)
      .toBe('cancelled');
    const resumed = await post(`${url}/api/workflows/runs/${runId}/resume`, { async: true });
    expect(resumed.status).toBe(202);
    await expect.poll(() => workflows.get('slow')!.active).toEqual([runId]);
    expect(await workflows.get('slow')!.cancel(runId)).toBe(true);
  });

  it('cancels the run when the client of a streamed run goes away', async () => {
    const { url, workflows } = await serve();
    const response = await post(`${url}/api/workflows/slow/run`, {}, { accept: 'text/event-stream' });
    const reader = response.body!.getReader();
    await reader.read();
    const [runId] = workflows.get('slow')!.active;
    expect(runId).toBeDefined();
    await reader.cancel();
    await expect
      .poll(async () => ((await (await fetch(`${url}/api/workflows/runs/${runId}`)).json()) as Json).status)
      .toBe('cancelled');
  });
});
