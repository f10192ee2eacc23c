import { describe, expect, it } from 'vitest';
import { defineWorkflow, type WorkflowEvent } from '../../../plugins/workflows/index.ts';
import { bootWorkflows, collect } from './helpers.ts';

const draftAndReview = defineWorkflow<{ topic: string }>({
  name: 'draft',
  description: 'Writes a draft, reviews it, and sums two numbers.',
  inputSchema: {
    type: 'object',
    properties: { topic: { type: 'string', minLength: 1 } },
    required: ['topic'],
    additionalProperties: false,
  },
  steps: [
    { id: 'write', kind: 'agent', agent: 'writer', input: 'Write about {{input.topic}}.' },
    { id: 'review', kind: 'agent', agent: 'reviewer', input: (s) => `Review: ${String(s.steps.write)}` },
    { id: 'sum', kind: 'tool', tool: 'add', input: { a: 2, b: '{{steps.count}}' } },
  ],
});

describe('workflow steps', () => {
  it('runs agent, tool and function steps in order, each reading earlier outputs from the state', async () => {
    const { workflows, models } = await bootWorkflows(
      [
        {
          ...draftAndReview,
          steps: [
            draftAndReview.steps[0]!,
            { id: 'count', kind: 'function', run: (s) => String(s.steps.write).split(' ').length },
            draftAndReview.steps[1]!,
            draftAndReview.steps[2]!,
          ],
        },
      ],
      {
        writer: [{ text: 'Otters hold hands', usage: { inputTokens: 5, outputTokens: 3 } }],
        reviewer: ['Lovely.'],
      },
    );
    const result = await workflows.get('draft')!.run({ topic: 'otters' });
    expect(result.status).toBe('completed');
    expect(models.writer.requests[0]!.messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'Write about otters.',
    });
    expect(models.reviewer.requests[0]!.messages.at(-1)).toMatchObject({
      content: 'Review: Otters hold hands',
    });
    expect(result.steps.map((s) => [s.id, s.kind, s.status, s.output])).toEqual([
      ['write', 'agent', 'completed', 'Otters hold hands'],
      ['count', 'function', 'completed', 3],
      ['review', 'agent', 'completed', 'Lovely.'],
      ['sum', 'tool', 'completed', { sum: 5 }],
    ]);
    expect(result.output).toEqual({ sum: 5 });
    expect(result.steps[0]!.usage).toEqual({ inputTokens: 5, outputTokens: 3 });
    expect(result.usage.inputTokens).toBeGreaterThanOrEqual(5);
    for (const step of result.steps) {
      expect(step.durationMs).toBeGreaterThanOrEqual(0);
      expect(Date.parse(step.finishedAt)).toBeGreaterThanOrEqual(Date.parse(step.startedAt));
    }
  });

  it('rejects input that does not match inputSchema before any step runs', async () => {
    const { workflows, models } = await bootWorkflows([draftAndReview]);
    await expect(workflows.get('draft')!.run({ topic: '' } as never)).rejects.toMatchObject({
      code: 'WORKFLOW_INPUT_INVALID',
      message: expect.stringContaining('topic'),
    });
    expect(models.writer.requests).toHaveLength(0);
  });

  it('branches on a condition and records the branch taken', async () => {
    const { workflows } = await bootWorkflows([
      defineWorkflow<{ n: number }>({
        name: 'sign',
        steps: [
          {
            id: 'check',
            kind: 'branch',
            if: (s) => s.input.n >= 0,
            steps: [{ id: 'positive', kind: 'function', run: () => 'non-negative' }],
            else: [{ id: 'negative', kind: 'function', run: () => 'negative' }],
          },
        ],
        output: (s) => s.steps.positive ?? s.steps.negative,
      }),
    ]);
    const sign = workflows.get('sign')!;
    const up = await sign.run({ n: 3 });
    expect(up.output).toBe('non-negative');
    expect(up.steps.find((s) => s.id === 'check')!.output).toEqual({
      branch: 'then',
      output: 'non-negative',
    });
    expect(up.steps.some((s) => s.id === 'negative')).toBe(false);
    const down = await sign.run({ n: -1 });
    expect(down.output).toBe('negative');
    expect(down.decisions).toEqual({ 'check?': false });
  });

  it('loops while the condition holds, each pass seeing the last one, and stops at max', async () => {
    const { workflows } = await bootWorkflows([
      defineWorkflow({
        name: 'count',
        steps: [
          { id: 'start', kind: 'function', run: () => 0 },
          {
            id: 'grow',
            kind: 'loop',
            max: 10,
            while: (s) => Number(s.steps.next ?? s.steps.start) < 3,
            steps: [{ id: 'next', kind: 'function', run: (s) => Number(s.steps.next ?? s.steps.start) + 1 }],
          },
        ],
      }),
      defineWorkflow({
        name: 'forever',
        steps: [
          {
            id: 'spin',
            kind: 'loop',
            max: 4,
            while: () => true,
            steps: [{ id: 'tick', kind: 'function', run: (s) => s.iterations.spin }],
          },
        ],
      }),
    ]);
    const counted = await workflows.get('count')!.run({});
    expect(counted.output).toEqual({ passes: 3, stopped: 'condition', output: 3 });
    expect(counted.steps.filter((s) => s.id === 'next').map((s) => s.key)).toEqual([
      'grow[0]/next',
      'grow[1]/next',
      'grow[2]/next',
    ]);
    const capped = await workflows.get('forever')!.run({});
    expect(capped.output).toEqual({ passes: 4, stopped: 'max', output: 3 });
  });

  it("fails with the failing step's error, and the steps after it never run", async () => {
    let after = 0;
    const { workflows } = await bootWorkflows([
      defineWorkflow({
        name: 'broken',
        steps: [
          { id: 'ok', kind: 'function', run: () => 'fine' },
          {
            id: 'boom',
            kind: 'function',
            run: () => {
              throw new Error('disk on fire');
            },
          },
          {
            id: 'later',
            kind: 'function',
            run: () => {
              after++;
            },
          },
        ],
      }),
    ]);
    const result = await workflows.get('broken')!.run({});
    expect(result.status).toBe('failed');
    expect(result.error).toEqual({ code: 'STEP_FAILED', message: 'disk on fire', stepId: 'boom' });
    expect(result.steps.map((s) => [s.id, s.status, s.attempts])).toEqual([
      ['ok', 'completed', 1],
      ['boom', 'failed', 1],
    ]);
    expect(after).toBe(0);
  });

  it('retries a failing step as declared, with events saying so, and succeeds', async () => {
    let calls = 0;
    const { workflows } = await bootWorkflows([
      defineWorkflow({
        name: 'flaky',
        steps: [
          {
            id: 'fetch',
            kind: 'function',
            retries: 2,
            retryDelayMs: 1,
            run: (_s, { attempt }) => {
              calls++;
              if (attempt < 3) throw new Error(`try ${attempt} failed`);
              return 'got it';
            },
          },
        ],
      }),
    ]);
    const events = await collect(workflows.get('flaky')!.stream({}));
    const errors = events.filter((e) => e.type === 'workflow-step-error');
    expect(errors.map((e) => [e.attempt, e.willRetry, e.error.message])).toEqual([
      [1, true, 'try 1 failed'],
      [2, true, 'try 2 failed'],
    ]);
    const finish = events.at(-1);
    expect(finish).toMatchObject({
      type: 'workflow-finish',
      result: { status: 'completed', output: 'got it' },
    });
    expect(calls).toBe(3);
    expect(events.filter((e) => e.type === 'workflow-step-finish')[0]).toMatchObject({
      record: { attempts: 3 },
    });
  });

  it('gives up after the retries and fails; continueOnError records the failure and goes on', async () => {
    const { workflows } = await bootWorkflows([
      defineWorkflow({
        name: 'hopeless',
        steps: [
          {
            id: 'x',
            kind: 'function',
            retries: 1,
            retryDelayMs: 1,
            run: () => {
              throw new Error('nope');
            },
          },
        ],
      }),
      defineWorkflow({
        name: 'tolerant',
        steps: [
          {
            id: 'optional',
            kind: 'function',
            continueOnError: true,
            run: () => {
              throw new Error('not today');
            },
          },
          { id: 'main', kind: 'function', run: (s) => ('optional' in s.steps ? 'saw it' : 'went on') },
        ],
      }),
    ]);
    const hopeless = await workflows.get('hopeless')!.run({});
    expect(hopeless).toMatchObject({ status: 'failed', error: { stepId: 'x', message: 'nope' } });
    expect(hopeless.steps[0]!.attempts).toBe(2);
    const tolerant = await workflows.get('tolerant')!.run({});
    expect(tolerant.status).toBe('completed');
    expect(tolerant.output).toBe('went on');
    expect(tolerant.steps[0]).toMatchObject({
      status: 'failed',
      continued: true,
      error: { message: 'not today' },
    });
  });

  it('fails a step that runs past its timeout', async () => {
    const { workflows } = await bootWorkflows([
      defineWorkflow({
        name: 'slow',
        steps: [{ id: 'nap', kind: 'function', timeoutMs: 30, run: () => new Promise(() => undefined) }],
      }),
    ]);
    const result = await workflows.get('slow')!.run({});
    expect(result.error).toMatchObject({ code: 'STEP_TIMEOUT', stepId: 'nap' });
  });

  it('tags the agent events inside a step with its id', async () => {
    const { workflows } = await bootWorkflows([draftAndReview], {
      writer: ['Otters are great'],
      reviewer: ['Yes'],
    });
    const events = await collect(workflows.get('draft')!.stream({ topic: 'otters' }));
    const deltas = events.filter((e) => e.type === 'text-delta');
    expect(deltas.length).toBeGreaterThan(0);
    expect(new Set(deltas.map((e) => (e as { stepId: string }).stepId))).toEqual(
      new Set(['write', 'review']),
    );
    expect(events[0]).toMatchObject({ type: 'workflow-start', workflow: 'draft', resumed: false });
    const kinds = events
      .filter((e) => e.type.startsWith('workflow-step'))
      .map((e) => `${e.type}:${(e as { stepId: string }).stepId}`);
    expect(kinds.slice(0, 2)).toEqual(['workflow-step-start:write', 'workflow-step-finish:write']);
  });

  it('applies the permission policy to tool steps', async () => {
    const { workflows } = await bootWorkflows(
      [
        defineWorkflow({
          name: 'adder',
          steps: [{ id: 'sum', kind: 'tool', tool: 'add', input: { a: 1, b: 2 } }],
        }),
      ],
      {},
      { config: { permissions: { deny: ['math:*'] } } },
    );
    const result = await workflows.get('adder')!.run({});
    expect(result.status).toBe('failed');
    expect(result.error!.message).toMatch(/permission denied.*math:\*/);
  });

  it('waits for an approval when the policy asks, and runs the tool once approved', async () => {
    const { workflows, kernel } = await bootWorkflows(
      [
        defineWorkflow({
          name: 'adder',
          steps: [{ id: 'sum', kind: 'tool', tool: 'add', input: { a: 1, b: 2 } }],
        }),
      ],
      {},
      { config: { permissions: { ask: ['math:add'] } } },
    );
    const events: WorkflowEvent[] = [];
    const running = workflows.get('adder')!.run({}, { runId: 'ask-1', onEvent: (e) => events.push(e) });
    await expect.poll(() => events.some((e) => e.type === 'approval-request')).toBe(true);
    expect(events.find((e) => e.type === 'approval-request')).toMatchObject({
      stepId: 'sum',
      tool: 'add',
      callId: 'sum#1',
    });
    await kernel.approvals.decide('ask-1', 'sum#1', { approved: true });
    const result = await running;
    expect(result).toMatchObject({ status: 'completed', output: { sum: 3 } });
  });

  it('fails a tool step with invalid input, naming the field', async () => {
    const { workflows } = await bootWorkflows([
      defineWorkflow({
        name: 'bad',
        steps: [{ id: 'sum', kind: 'tool', tool: 'add', input: { a: 'one', b: 2 } }],
      }),
    ]);
    const result = await workflows.get('bad')!.run({});
    expect(result.error).toMatchObject({ code: 'TOOL_INPUT_INVALID', stepId: 'sum' });
    expect(result.error!.message).toContain('"a"');
  });

  it('says which template value is missing', async () => {
    const { workflows } = await bootWorkflows([
      defineWorkflow({
        name: 'typo',
        steps: [{ id: 'w', kind: 'agent', agent: 'writer', input: 'About {{steps.nothing}}' }],
      }),
    ]);
    const result = await workflows.get('typo')!.run({});
    expect(result.error!.message).toMatch(/\{\{steps\.nothing\}\}.*available: none yet/);
  });
});

describe('defineWorkflow', () => {
  it.each<[unknown, RegExp]>([
    [{ name: 'x y', steps: [{ id: 'a', kind: 'function', run: () => 1 }] }, /"name" must be letters/],
    [{ name: 'x', steps: [] }, /"steps" must be a non-empty array/],
    [{ name: 'x', steps: [{ id: 'a', kind: 'magic' }] }, /"kind" must be one of agent, tool/],
    [
      {
        name: 'x',
        steps: [
          { id: 'a', kind: 'function', run: () => 1 },
          { id: 'p', kind: 'parallel', steps: [{ id: 'a', kind: 'function', run: () => 1 }] },
        ],
      },
      /step "a" \(steps\[1\]\.steps\[0\]\): the id is used twice/,
    ],
    [
      {
        name: 'x',
        steps: [
          {
            id: 'l',
            kind: 'loop',
            while: () => true,
            max: 0,
            steps: [{ id: 'b', kind: 'function', run: () => 1 }],
          },
        ],
      },
      /"max" must be a whole number >= 1/,
    ],
    [{ name: 'x', steps: [{ id: 'a', kind: 'agent', input: 'hi' }] }, /"agent" must name an agent/],
    [
      {
        name: 'x',
        steps: [
          { id: 'p', kind: 'parallel', retries: 2, steps: [{ id: 'b', kind: 'function', run: () => 1 }] },
        ],
      },
      /"retries" applies to agent, tool, function, stars steps/,
    ],
    [
      {
        name: 'x',
        steps: [
          { id: 'p', kind: 'parallel', timeoutMs: 5, steps: [{ id: 'b', kind: 'function', run: () => 1 }] },
        ],
      },
      /"timeoutMs" applies to agent, tool, function, stars steps, not parallel/,
    ],
  ])('rejects a malformed definition: %#', (definition, message) => {
    expect(() => defineWorkflow(definition as never)).toThrow(message);
  });
});
