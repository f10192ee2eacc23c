import { describe, expect, it } from 'vitest';
import workflows, { defineWorkflow } from '../../../plugins/workflows/index.ts';
import { bootKernel } from '../../../testing/index.ts';
import { bootWorkflows, wait } from './helpers.ts';

describe('workflow edge cases', () => {
  it('a resume restores the outputs of steps inside finished containers', async () => {
    let fail = true;
    const { workflows: found } = await bootWorkflows([
      defineWorkflow({
        name: 'nested',
        steps: [
          {
            id: 'gather',
            kind: 'parallel',
            steps: [
              { id: 'a', kind: 'function', run: () => 'A' },
              {
                id: 'maybe',
                kind: 'branch',
                if: () => true,
                steps: [{ id: 'b', kind: 'function', run: () => 'B' }],
              },
            ],
          },
          {
            id: 'loop',
            kind: 'loop',
            max: 2,
            while: () => true,
            steps: [{ id: 'c', kind: 'function', run: (s) => `C${s.iterations.loop}` }],
          },
          {
            id: 'use',
            kind: 'function',
            run: (s) => {
              if (fail) throw new Error('not yet');
              return `${s.steps.a}${s.steps.b}${s.steps.c}`;
            },
          },
        ],
      }),
    ]);
    const nested = found.get('nested')!;
    const first = await nested.run({});
    expect(first.status).toBe('failed');
    fail = false;
    const resumed = await nested.resume(first.runId);
    expect(resumed).toMatchObject({ status: 'completed', output: 'ABC1' });
  });

  it('two resumes of one run at once: the second is refused', async () => {
    let runs = 0;
    const { workflows: found } = await bootWorkflows([
      defineWorkflow({
        name: 'once',
        steps: [
          {
            id: 'x',
            kind: 'function',
            run: () => {
              runs++;
              if (runs === 1) throw new Error('first try fails');
              return 'ok';
            },
          },
        ],
      }),
    ]);
    const once = found.get('once')!;
    const { runId } = await once.run({});
    const results = await Promise.allSettled([once.resume(runId), once.resume(runId)]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({
      code: 'WORKFLOW_RUN_ACTIVE',
    });
    expect(runs).toBe(2);
    const starts = await Promise.allSettled([
      once.run({}, { runId: 'same' }),
      once.run({}, { runId: 'same' }),
    ]);
    expect(starts.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
  });

  it("refuses run ids that could reach into another run's records", async () => {
    const { workflows: found } = await bootWorkflows([
      defineWorkflow({ name: 'w', steps: [{ id: 'x', kind: 'function', run: () => 1 }] }),
    ]);
    await expect(found.get('w')!.run({}, { runId: 'a/b' })).rejects.toThrow(/invalid run id "a\/b"/);
  });

  it('keeps the usage of failed attempts on the record', async () => {
    const { workflows: found } = await bootWorkflows([
      defineWorkflow({
        name: 'costly',
        steps: [
          {
            id: 'x',
            kind: 'function',
            retries: 1,
            retryDelayMs: 1,
            continueOnError: true,
            run: (_s, { addUsage }) => {
              addUsage({ inputTokens: 100, outputTokens: 10 });
              throw new Error('wasted');
            },
          },
        ],
      }),
    ]);
    const result = await found.get('costly')!.run({});
    expect(result.steps[0]).toMatchObject({
      status: 'failed',
      attempts: 2,
      usage: { inputTokens: 200, outputTokens: 20 },
    });
    expect(result.usage).toMatchObject({ inputTokens: 200, outputTokens: 20 });
  });

  it('cancels and records runs started in code when the kernel closes', async () => {
    const kernel = await bootKernel({
      plugins: [
        workflows([
          defineWorkflow({
            name: 'slow',
            steps: [{ id: 'nap', kind: 'function', run: (_s, { signal }) => wait(60_000, signal) }],
          }),
        ]),
      ],
    });
    const slow = kernel.service('workflows').get('slow')!;
    const running = slow.run({}, { runId: 'r' });
    await expect.poll(() => slow.active).toEqual(['r']);
    await kernel.close();
    expect(slow.active).toEqual([]);
    expect((await running).status).toBe('cancelled');
  });

  it('a listener that throws does not fail the run', async () => {
    const { workflows: found } = await bootWorkflows([
      defineWorkflow({ name: 'w', steps: [{ id: 'x', kind: 'function', run: () => 1 }] }),
    ]);
    const result = await found.get('w')!.run(
      {},
      {
        onEvent: () => {
          throw new Error('bad listener');
        },
      },
    );
    expect(result.status).toBe('completed');
    expect(result.steps.map((s) => s.status)).toEqual(['completed']);
  });

  it('steps see the input as JSON, as after a resume', async () => {
    const { workflows: found } = await bootWorkflows([
      defineWorkflow({
        name: 'w',
        steps: [{ id: 'x', kind: 'function', run: (s) => typeof (s.input as { at: unknown }).at }],
      }),
    ]);
    const result = await found.get('w')!.run({ at: new Date(0) });
    expect(result.output).toBe('string');
    expect(result.input).toEqual({ at: '1970-01-01T00:00:00.000Z' });
  });

  it('templates read own data only, and a value that is undefined counts as missing', async () => {
    const { workflows: found } = await bootWorkflows([
      defineWorkflow({
        name: 'proto',
        steps: [{ id: 'w', kind: 'agent', agent: 'writer', input: '{{input.constructor}}' }],
      }),
      defineWorkflow({
        name: 'undef',
        steps: [
          { id: 'nothing', kind: 'function', run: () => undefined },
          { id: 'w', kind: 'agent', agent: 'writer', input: 'Use {{steps.nothing}}' },
        ],
      }),
    ]);
    expect((await found.get('proto')!.run({})).error!.message).toContain('"input.constructor" has no value');
    expect((await found.get('undef')!.run({})).error!.message).toContain('"steps.nothing" has no value');
  });

  it('types the state input from inputSchema', async () => {
    const typed = defineWorkflow({
      name: 'typed',
      inputSchema: {
        type: 'object',
        properties: { topic: { type: 'string' } },
        required: ['topic'],
      } as const,
      // `s.input.topic` is a string here: a typo would fail the type check of this file.
      steps: [{ id: 'up', kind: 'function', run: (s) => s.input.topic.toUpperCase() }],
    });
    const { workflows: found } = await bootWorkflows([typed]);
    expect((await found.get('typed')!.run({ topic: 'tea' })).output).toBe('TEA');
  });
});
