// Where a run's steps keep its guardrails' verdicts, from the events of real runs: the user's
// message's and the answer's on the model step, a tool call's on its tool step, and the verdicts of
// a run a guardrail stopped on the step it stopped in.
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent, Kernel, RunStep } from '../../core/index.ts';
import { StepRecorder } from '../../core/runs/step-recorder.ts';
import { bootAgent, makeTool } from '../agent/helpers.ts';
import { blockTerm, CARD_NUMBER, redactCards } from './test-guardrails.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

async function stepsOf(setup: Parameters<typeof bootAgent>[0], input: string): Promise<RunStep[]> {
  const { kernel, agent } = await bootAgent(setup);
  kernels.push(kernel);
  const steps: RunStep[] = [];
  let recorder: StepRecorder | undefined;
  const see = (event: AgentEvent) => {
    recorder ??= new StepRecorder(event.runId);
    steps.push(...recorder.see(event));
  };
  await agent.run(input, { onEvent: see }).catch(() => undefined);
  return steps;
}

const said = (step: RunStep | undefined) =>
  step?.guardrails?.map((v) => `${v.guardrail} ${v.stage} ${v.action}${v.callId ? ` ${v.callId}` : ''}`);

describe('guardrail verdicts on the run’s steps', () => {
  it('the input’s and each answer’s on the model steps, a call’s on its tool step', async () => {
    const echo = makeTool('echo', (_ctx, tc) => tc.input);
    const steps = await stepsOf(
      {
        tools: [echo],
        script: [{ toolCalls: [{ name: 'echo', id: 'c1', input: { card: CARD_NUMBER } }] }, 'Done.'],
        template: { guardrails: { input: [redactCards()], output: [redactCards()], tool: [redactCards()] } },
      },
      `card ${CARD_NUMBER}`,
    );
    expect(steps.map((step) => `${step.kind} ${step.step}`)).toEqual(['model 1', 'tool 1', 'model 2']);
    // The first answer asked for a tool without text: nothing for the output guardrails to check.
    expect(said(steps[0])).toEqual(['cards input rewrite']);
    // The handler echoed the redacted arguments: its output has nothing left to redact.
    expect(said(steps[1])).toEqual(['cards tool-input rewrite c1', 'cards tool-output pass c1']);
    expect(said(steps[2])).toEqual(['cards output pass']);
    expect(steps[2]!.guardrails![0]!.checks).toBe(1);
  });

  it('a run stopped by a trip keeps the step it stopped in, failed, with the verdicts', async () => {
    const output = await stepsOf(
      { script: ['That is classified.'], template: { guardrails: { output: [blockTerm('classified')] } } },
      'hi',
    );
    expect(output).toMatchObject([{ kind: 'model', status: 'error', error: { code: 'GUARDRAIL_TRIPPED' } }]);
    expect(said(output[0])).toEqual(['block-classified output trip']);

    const leak = makeTool('leak', () => 'classified data');
    const tool = await stepsOf(
      {
        tools: [leak],
        script: [{ toolCalls: [{ name: 'leak', id: 'c9' }] }, 'never'],
        template: { guardrails: { tool: [blockTerm('classified')] } },
      },
      'go',
    );
    expect(tool).toMatchObject([{ kind: 'model', status: 'error', error: { code: 'GUARDRAIL_TRIPPED' } }]);
    expect(said(tool[0])).toEqual([
      'block-classified tool-input pass c9',
      'block-classified tool-output trip c9',
    ]);

    // The user's message's verdicts, held for the first step's end, are kept when a tool trips in it.
    const held = await stepsOf(
      {
        tools: [leak],
        script: [{ toolCalls: [{ name: 'leak', id: 'c7' }] }, 'never'],
        template: { guardrails: { input: [redactCards()], tool: [blockTerm('classified')] } },
      },
      `card ${CARD_NUMBER}`,
    );
    expect(said(held[0])).toEqual([
      'cards input rewrite',
      'block-classified tool-input pass c7',
      'block-classified tool-output trip c7',
    ]);
  });
});
