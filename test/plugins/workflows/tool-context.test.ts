import { describe, expect, it } from 'vitest';
import {
  defineTool,
  type ElicitResult,
  HubosError,
  type Logger,
  type Plugin,
  type SampleResult,
} from '../../../core/index.ts';
import { defineWorkflow, type WorkflowEvent } from '../../../plugins/workflows/index.ts';
import { ScriptedModel } from '../../../testing/index.ts';
import { bootWorkflows } from './helpers.ts';

const QUESTION = {
  message: 'Which label?',
  schema: {
    type: 'object',
    properties: {
      label: { type: 'string', enum: ['red', 'blue'], default: 'red' },
      note: { type: 'string' },
    },
  },
} as const;

/** `label` logs, reports progress, asks QUESTION and samples; it returns what it got (or the error codes). */
function labelTool(): { plugin: Plugin; seen: { answer?: ElicitResult; sampled?: SampleResult | string } } {
  const seen: { answer?: ElicitResult; sampled?: SampleResult | string } = {};
  const plugin: Plugin = {
    name: 'label-tool',
    apply(kernel) {
      kernel.hooks.registerTools.tap('label-tool', (registry) =>
        registry.register(
          defineTool({
            name: 'label',
            description: 'Labels something, asking which label.',
            inputSchema: { type: 'object', properties: {} },
            handler: async (_ctx, tc) => {
              tc.log('warning', 'about to ask', { attempt: 1 });
              tc.progress({ progress: 1, total: 2 });
              seen.answer = await tc.elicit(QUESTION);
              seen.sampled = await tc
                .sample({ messages: [{ role: 'user', content: 'Name a colour.' }], maxTokens: 10 })
                .catch((error: unknown) => (HubosError.is(error) ? error.code : String(error)));
              return { label: seen.answer.content?.label ?? null };
            },
          }),
        ),
      );
    },
  };
  return { plugin, seen };
}

const labelling = defineWorkflow({
  name: 'labelling',
  steps: [{ id: 'pick', kind: 'tool', tool: 'label', input: {} }],
});

/** A logger that keeps what it is told. */
function keepingLogger(lines: string[]): Logger {
  return {
    debug: (message) => lines.push(`debug ${message}`),
    info: (message) => lines.push(`info ${message}`),
    warn: (message) => lines.push(`warn ${message}`),
    error: (message) => lines.push(`error ${message}`),
  };
}

describe("a workflow tool step's tool context", () => {
  it('logs to the events and the app logger; asks through the run approvals; samples the config model', async () => {
    const { plugin, seen } = labelTool();
    const lines: string[] = [];
    const model = new ScriptedModel([{ text: 'Teal', usage: { inputTokens: 4, outputTokens: 1 } }]);
    const provider: Plugin = {
      name: 'scripted-provider',
      apply(kernel) {
        kernel.hooks.registerModels.tap('scripted-provider', (models) =>
          models.register({ id: 'scripted', languageModel: () => model }),
        );
      },
    };
    const { workflows, kernel } = await bootWorkflows(
      [labelling],
      {},
      {
        plugins: [plugin, provider],
        logger: keepingLogger(lines),
        config: { model: 'scripted:poet' },
      },
    );
    const events: WorkflowEvent[] = [];
    const running = workflows.get('labelling')!.run(
      {},
      {
        runId: 'wf-1',
        onEvent: (event) => {
          events.push(event);
          if (event.type === 'approval-request')
            void kernel.approvals.decide(event.runId, event.callId, {
              approved: true,
              content: { note: 'hi' },
            });
        },
      },
    );
    const result = await running;
    expect(result).toMatchObject({ status: 'completed', output: { label: 'red' } });
    expect(seen.answer).toEqual({ action: 'accept', content: { label: 'red', note: 'hi' } });
    expect(seen.sampled).toEqual({ text: 'Teal', model: 'scripted:scripted', stopReason: 'endTurn' });
    expect(result.usage).toEqual({ inputTokens: 4, outputTokens: 1 });

    expect(events.find((e) => e.type === 'tool-log')).toEqual({
      type: 'tool-log',
      runId: 'wf-1',
      step: 0,
      callId: 'pick#1',
      tool: 'label',
      level: 'warning',
      message: 'about to ask',
      data: { attempt: 1 },
      stepId: 'pick',
      workflowRunId: 'wf-1',
    });
    expect(events.find((e) => e.type === 'tool-progress')).toMatchObject({
      stepId: 'pick',
      data: { progress: 1, total: 2 },
    });
    expect(events.find((e) => e.type === 'approval-request')).toMatchObject({
      stepId: 'pick',
      callId: 'pick#1.ask-1',
      question: QUESTION,
    });
    expect(lines).toContain('warn workflow "labelling" step "pick" (tool label): about to ask');
  });

  it('without a config model, sampling rejects SAMPLING_UNAVAILABLE; a declined question reaches the tool', async () => {
    const { plugin, seen } = labelTool();
    const { workflows, kernel } = await bootWorkflows([labelling], {}, { plugins: [plugin] });
    const result = await workflows.get('labelling')!.run(
      {},
      {
        onEvent: (event) => {
          if (event.type === 'approval-request')
            void kernel.approvals.decide(event.runId, event.callId, { approved: false, reason: 'skip it' });
        },
      },
    );
    expect(result).toMatchObject({ status: 'completed', output: { label: null } });
    expect(seen.answer).toEqual({ action: 'decline', reason: 'skip it' });
    expect(seen.sampled).toBe('SAMPLING_UNAVAILABLE');
  });
});
