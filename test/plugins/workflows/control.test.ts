import { describe, expect, it } from 'vitest';
import cosmos from '../../../plugins/cosmos/index.ts';
import stars from '../../../plugins/stars/index.ts';
import { defineWorkflow } from '../../../plugins/workflows/index.ts';
import { barrier } from '../stars/helpers.ts';
import { bootWorkflows, collect, wait } from './helpers.ts';

describe('parallel steps, cancellation and resume', () => {
  it('runs parallel steps at the same time (each waits for the other) and keeps each output by id', async () => {
    const together = barrier(2);
    const { workflows } = await bootWorkflows([
      defineWorkflow({
        name: 'fan',
        steps: [
          {
            id: 'both',
            kind: 'parallel',
            steps: [
              {
                id: 'left',
                kind: 'function',
                run: async () => {
                  await together();
                  return 'L';
                },
              },
              {
                id: 'right',
                kind: 'function',
                run: async () => {
                  await together();
                  return 'R';
                },
              },
            ],
          },
          { id: 'join', kind: 'function', run: (s) => `${s.steps.left}${s.steps.right}` },
        ],
      }),
    ]);
    const result = await workflows.get('fan')!.run({});
    expect(result.status).toBe('completed');
    expect(result.steps.find((s) => s.id === 'both')!.output).toEqual({ left: 'L', right: 'R' });
    expect(result.output).toBe('LR');
  });

  it('runs parallel agent steps concurrently too', async () => {
    const { workflows } = await bootWorkflows(
      [
        defineWorkflow({
          name: 'two-agents',
          steps: [
            {
              id: 'both',
              kind: 'parallel',
              steps: [
                { id: 'w', kind: 'agent', agent: 'writer', input: 'go' },
                { id: 'r', kind: 'agent', agent: 'reviewer', input: 'go' },
              ],
            },
          ],
        }),
      ],
      { writer: [{ text: 'W', delayMs: 300 }], reviewer: [{ text: 'R', delayMs: 300 }] },
    );
    const result = await workflows.get('two-agents')!.run({});
    const [w, r] = ['w', 'r'].map((id) => result.steps.find((s) => s.id === id)!);
    // Each started before the other finished.
    expect(Date.parse(w!.startedAt)).toBeLessThan(Date.parse(r!.finishedAt));
    expect(Date.parse(r!.startedAt)).toBeLessThan(Date.parse(w!.finishedAt));
  });

  it('cancels the other parallel steps when one fails', async () => {
    let sawAbort = false;
    const { workflows } = await bootWorkflows([
      defineWorkflow({
        name: 'fail-fast',
        steps: [
          {
            id: 'both',
            kind: 'parallel',
            steps: [
              {
                id: 'bad',
                kind: 'function',
                run: async () => {
                  await wait(20);
                  throw new Error('bad news');
                },
              },
              {
                id: 'slow',
                kind: 'function',
                run: async (_s, { signal }) => {
                  await wait(10_000, signal).catch((error) => {
                    sawAbort = true;
                    throw error;
                  });
                },
              },
            ],
          },
        ],
      }),
    ]);
    const result = await workflows.get('fail-fast')!.run({});
    expect(result).toMatchObject({ status: 'failed', error: { stepId: 'bad', message: 'bad news' } });
    expect(result.steps.find((s) => s.id === 'slow')!.status).toBe('cancelled');
    expect(sawAbort).toBe(true);
  });

  it('stops running steps when cancelled, and records the run as cancelled', async () => {
    const controller = new AbortController();
    let stepSignal: AbortSignal | undefined;
    const { workflows, kernel } = await bootWorkflows([
      defineWorkflow({
        name: 'long',
        steps: [
          { id: 'first', kind: 'function', run: () => 1 },
          {
            id: 'wait',
            kind: 'function',
            run: (_s, { signal }) => {
              stepSignal = signal;
              controller.abort();
              return new Promise(() => undefined); // ignores its signal: the run still stops
            },
          },
          { id: 'never', kind: 'function', run: () => 'ran' },
        ],
      }),
    ]);
    const result = await workflows.get('long')!.run({}, { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(stepSignal?.aborted).toBe(true);
    expect(result.steps.map((s) => [s.id, s.status])).toEqual([
      ['first', 'completed'],
      ['wait', 'cancelled'],
    ]);
    const stored = await workflows.get('long')!.getRun(result.runId);
    expect(stored?.status).toBe('cancelled');
    expect(kernel.store).toBeDefined();
  });

  it('cancels an agent step: the agent run stops', async () => {
    const { workflows } = await bootWorkflows(
      [
        defineWorkflow({
          name: 'chat',
          steps: [{ id: 'talk', kind: 'agent', agent: 'writer', input: 'hi' }],
        }),
      ],
      { writer: [{ text: 'too late', delayMs: 10_000 }] },
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const result = await workflows.get('chat')!.run({}, { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('resumes a failed run from its last finished step, without running finished steps again', async () => {
    const runs = { a: 0, b: 0, c: 0 };
    let healthy = false;
    const { workflows } = await bootWorkflows([
      defineWorkflow({
        name: 'pipeline',
        steps: [
          { id: 'a', kind: 'function', run: () => ++runs.a },
          {
            id: 'loop',
            kind: 'loop',
            max: 3,
            while: () => true,
            steps: [
              {
                id: 'b',
                kind: 'function',
                run: (s) => {
                  runs.b++;
                  if (s.iterations.loop === 1 && !healthy) throw new Error('flaky backend');
                  return s.iterations.loop;
                },
              },
            ],
          },
          {
            id: 'c',
            kind: 'function',
            run: (s) => {
              runs.c++;
              return `${s.steps.a}/${JSON.stringify(s.steps.loop)}`;
            },
          },
        ],
      }),
    ]);
    const pipeline = workflows.get('pipeline')!;
    const first = await pipeline.run({});
    expect(first.status).toBe('failed');
    expect(runs).toEqual({ a: 1, b: 2, c: 0 });
    healthy = true;
    const events = await collect(pipeline.resumeStream(first.runId));
    expect(events[0]).toMatchObject({ type: 'workflow-start', resumed: true, runId: first.runId });
    const result = events.at(-1) as { result: Awaited<ReturnType<typeof pipeline.run>> };
    expect(result.result.status).toBe('completed');
    // a and pass 0 of b were not run again; pass 1 was retried, pass 2 and c ran once.
    expect(runs).toEqual({ a: 1, b: 4, c: 1 });
    expect(result.result.output).toBe('1/{"passes":3,"stopped":"max","output":2}');
    expect(result.result.resumes).toBe(1);
    expect(result.result.steps.filter((s) => s.status !== 'completed')).toEqual([]);
    await expect(pipeline.resume(first.runId)).rejects.toMatchObject({
      code: 'WORKFLOW_RUN_FINISHED',
    });
    await expect(pipeline.resume('no-such-run')).rejects.toMatchObject({
      code: 'WORKFLOW_RUN_NOT_FOUND',
    });
  });

  it('refuses to resume a run that is still running here', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { workflows } = await bootWorkflows([
      defineWorkflow({ name: 'held', steps: [{ id: 'hold', kind: 'function', run: () => gate }] }),
    ]);
    const held = workflows.get('held')!;
    const running = held.run({}, { runId: 'r1' });
    await expect.poll(() => held.active).toEqual(['r1']);
    await expect(held.resume('r1')).rejects.toMatchObject({ code: 'WORKFLOW_RUN_ACTIVE' });
    await expect(held.run({}, { runId: 'r1' })).rejects.toMatchObject({
      code: 'WORKFLOW_RUN_ACTIVE',
    });
    release();
    expect((await running).status).toBe('completed');
  });

  it('runs a Stars team as a step; its events carry the step id', async () => {
    const { workflows } = await bootWorkflows(
      [
        defineWorkflow({
          name: 'teamwork',
          steps: [
            { id: 'brief', kind: 'function', run: () => 'a haiku about tea' },
            { id: 'team', kind: 'stars', team: 'duo', task: 'Write {{steps.brief}}' },
          ],
        }),
      ],
      {
        writer: [
          {
            toolCalls: [
              { name: 'stars_delegate', input: { tasks: [{ worker: 'duo-reviewer', task: 'draft it' }] } },
            ],
          },
          'Steam rises, leaves unfurl',
        ],
        reviewer: ['draft: steam'],
      },
      {
        plugins: [cosmos(), stars()],
        config: {
          stars: {
            duo: {
              members: [
                { agent: 'writer', role: 'leader' },
                { agent: 'reviewer', role: 'worker' },
              ],
            },
          },
        },
      },
    );
    const events = await collect(workflows.get('teamwork')!.stream({}));
    const finish = events.at(-1) as { result: { status: string; output: unknown } };
    expect(finish.result).toMatchObject({ status: 'completed', output: 'Steam rises, leaves unfurl' });
    const inner = events.filter((e) => e.type === 'stars-delegation');
    expect(inner).toHaveLength(1);
    expect(inner[0]).toMatchObject({ stepId: 'team', worker: 'duo-reviewer' });
  });

  it('fails an agent step naming an unknown agent, listing the known ones', async () => {
    const { workflows } = await bootWorkflows([
      defineWorkflow({ name: 'ghost', steps: [{ id: 'x', kind: 'agent', agent: 'nobody', input: 'hi' }] }),
    ]);
    const result = await workflows.get('ghost')!.run({});
    expect(result.error).toMatchObject({ code: 'AGENT_NOT_FOUND', stepId: 'x' });
    expect(result.error!.message).toContain('writer, reviewer');
  });
});
