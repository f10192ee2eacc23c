// Client tools: tools the AG-UI client declares in RunAgentInput.tools and executes itself. The
// model sees them; calling one ends the run with the call pending (TOOL_CALL_START/ARGS/END, then
// RUN_FINISHED naming it), and the client answers with a `tool` message in its next run.
//
// The first test checks the AG-UI side against a stand-in agent that behaves as the agent loop
// will once core/agent's RunOptions has `clientTools` and `toolResults`. The second runs the real
// loop, and runs only once core has them (it probes for them and says so in its title).
import { HttpAgent, type RunFinishedEvent } from '@ag-ui/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent, AgentEvent, RunOptions, RunResult } from '../../../../core/index.ts';
import { HubOS } from '../../../../plugins/hubos/hubos.ts';
import { bootKernel, ScriptedModel } from '../../../../testing/index.ts';
import { ofType, runWith, type Served, serveAgent, shape } from './helpers.ts';

const confirm = {
  name: 'confirm',
  description: 'Asks the user to confirm.',
  parameters: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
};

// Probed once, at load: a run of the real loop with a client tool.
const CORE_HAS_CLIENT_TOOLS = await coreHasClientTools();

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('client tools over AG-UI', () => {
  it('passes them to the run, reports a call as pending, and sends the answer back as a tool result', async () => {
    const calls: { input: string; options: RunOptions }[] = [];
    const stand = standIn(
      [
        [
          { type: 'step-start', runId: 'r', step: 1 },
          { type: 'tool-call-start', runId: 'r', step: 1, id: 'c1', name: 'confirm' },
          { type: 'tool-call-args', runId: 'r', step: 1, id: 'c1', delta: '{"question":' },
          { type: 'tool-call-args', runId: 'r', step: 1, id: 'c1', delta: '"Proceed?"}' },
          {
            type: 'tool-call-end',
            runId: 'r',
            step: 1,
            id: 'c1',
            name: 'confirm',
            input: { question: 'Proceed?' },
          },
          { type: 'step-finish', runId: 'r', step: 1, finishReason: 'tool-calls', usage: usage() },
          { type: 'run-finish', runId: 'r', result: result('tool-calls') },
        ],
        [
          { type: 'step-start', runId: 'r', step: 1 },
          { type: 'text-delta', runId: 'r', step: 1, delta: 'Done.' },
          { type: 'step-finish', runId: 'r', step: 1, finishReason: 'stop', usage: usage() },
          { type: 'run-finish', runId: 'r', result: result('stop') },
        ],
      ],
      calls,
    );
    const hubos = new HubOS({ port: 0 }).registerAgent('stand-in', stand);
    const url = await hubos.serve();
    closers.push(() => hubos.close());
    const agent = new HttpAgent({ url: `${url}/agui/stand-in` });

    const first = await runWith(agent, 'Deploy it.', { tools: [confirm] });
    expect(calls[0]).toEqual({
      input: 'Deploy it.',
      options: expect.objectContaining({
        sessionId: agent.threadId,
        clientTools: [{ name: 'confirm', description: confirm.description, inputSchema: confirm.parameters }],
      }),
    });
    expect(shape(first.events)).toEqual([
      'RUN_STARTED',
      'STEP_STARTED',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'STEP_FINISHED',
      'RUN_FINISHED',
    ]);
    expect(ofType<RunFinishedEvent>(first.events, 'RUN_FINISHED')[0]!.outcome).toEqual({
      type: 'success',
      pendingToolCallIds: ['c1'],
    });
    expect(first.result!.newMessages).toMatchObject([
      {
        role: 'assistant',
        toolCalls: [{ id: 'c1', function: { name: 'confirm', arguments: '{"question":"Proceed?"}' } }],
      },
    ]);

    // The client ran the tool; its answer is the next run's only new message.
    agent.addMessage({ id: 'answer-1', role: 'tool', toolCallId: 'c1', content: 'yes' });
    const second = await runWith(agent, undefined, { tools: [confirm] });
    expect(calls[1]!.input).toBe('');
    expect(calls[1]!.options.toolResults).toEqual([
      { role: 'tool', toolCallId: 'c1', name: 'confirm', content: 'yes' },
    ]);
    expect(shape(second.events)).toContain('TEXT_MESSAGE_CONTENT');
  });

  it.skipIf(!CORE_HAS_CLIENT_TOOLS)(
    'runs end to end on the real agent loop [needs core/agent RunOptions.clientTools + toolResults]',
    async () => {
      const served: Served = await serveAgent([
        (request) => {
          expect(request.tools.map((tool) => tool.name)).toContain('confirm');
          return { toolCalls: [{ id: 'c1', name: 'confirm', input: { question: 'Proceed?' } }] };
        },
        'Confirmed, deploying.',
      ]);
      closers.push(() => served.close());
      const agent = served.client();
      const first = await runWith(agent, 'Deploy it.', { tools: [confirm] });
      expect(shape(first.events)).toEqual([
        'RUN_STARTED',
        'CUSTOM',
        'STEP_STARTED',
        'TOOL_CALL_START',
        'TOOL_CALL_ARGS',
        'TOOL_CALL_END',
        'STEP_FINISHED',
        'RUN_FINISHED',
      ]);
      expect(ofType<RunFinishedEvent>(first.events, 'RUN_FINISHED')[0]!.outcome).toEqual({
        type: 'success',
        pendingToolCallIds: ['c1'],
      });
      expect(served.model.requests).toHaveLength(1); // the run stopped at the client's call

      agent.addMessage({ id: 'answer-1', role: 'tool', toolCallId: 'c1', content: 'yes' });
      const second = await runWith(agent, undefined, { tools: [confirm] });
      expect(second.result!.newMessages).toMatchObject([
        { role: 'assistant', content: 'Confirmed, deploying.' },
      ]);
      expect(served.model.requests[1]!.messages).toEqual([
        { role: 'user', content: 'Deploy it.' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'c1', name: 'confirm', input: { question: 'Proceed?' } }],
        },
        { role: 'tool', toolCallId: 'c1', name: 'confirm', content: 'yes' },
      ]);
      served.model.assertConsumed();
    },
  );
});

/** An agent that replays one list of events per run and records what each run was asked. */
function standIn(runs: AgentEvent[][], calls: { input: string; options: RunOptions }[]): Agent {
  return {
    id: 'stand-in',
    tools: [],
    async run(input: string, options: RunOptions & { onEvent?: (event: AgentEvent) => void }) {
      const { onEvent, ...rest } = options;
      calls.push({ input, options: rest });
      let last: RunResult | undefined;
      for (const event of runs.shift() ?? []) {
        onEvent?.(event);
        if (event.type === 'run-finish') last = event.result;
      }
      return last;
    },
  } as unknown as Agent;
}

function usage() {
  return { inputTokens: 1, outputTokens: 1 };
}

function result(stopReason: RunResult['stopReason']): RunResult {
  return {
    runId: 'r',
    agent: 'stand-in',
    status: 'completed',
    stopReason,
    text: '',
    messages: [],
    toolCalls: [],
    usage: usage(),
    steps: 1,
  };
}

/**
 * Whether the agent loop takes client tools yet: the model must see one, and calling it must
 * end the run after one model call instead of failing the call as an unknown tool.
 */
async function coreHasClientTools(): Promise<boolean> {
  const model = new ScriptedModel([{ toolCalls: [{ name: 'probe_tool' }] }, 'the call ran as a server tool']);
  const kernel = await bootKernel({ config: { agents: { probe: { model } } } });
  try {
    const options: RunOptions = {
      clientTools: [{ name: 'probe_tool', description: 'probe', inputSchema: { type: 'object' } }],
    };
    await kernel.agent('probe').run('probe', options);
    return model.requests[0]!.tools.some((tool) => tool.name === 'probe_tool') && model.requests.length === 1;
  } finally {
    await kernel.close();
  }
}
