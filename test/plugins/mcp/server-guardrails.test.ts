// Guardrails on the MCP face, with the official MCP client: an `ask_<agent>` run, and a tools/call
// of a served tool (the config's tool guardrails check every call through kernel.tools).
import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from '../../../core/index.ts';
import hubos from '../../../plugins/hubos/index.ts';
import mcp from '../../../plugins/mcp/index.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../testing/index.ts';
import { blockTerm, CARD_NUMBER } from '../../guardrails/test-guardrails.ts';
import { testTools } from '../hubos/helpers.ts';
import { connect, textOf } from './server-helpers.ts';

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.close();
  kernel = undefined;
});

async function serve(script: ScriptStep[]) {
  const model = new ScriptedModel(script);
  kernel = await bootKernel({
    plugins: [testTools, mcp(), hubos({ port: 0, rateLimit: false })],
    config: {
      guardrails: { tool: ['pii', blockTerm('forbidden', { stages: ['tool-input'] })] },
      agents: {
        helper: {
          description: 'Guarded.',
          model,
          guardrails: { input: ['pii'], output: [blockTerm('internal only')] },
        },
      },
      mcp: { serve: { tools: ['echo'], agents: ['helper'] } },
    },
  });
  const url = await kernel.service('hubos').serve();
  const { client } = await connect(url);
  return { client, model };
}

describe('guardrails over MCP', () => {
  it('ask_<agent>: pii keeps a card number from the model; the answer passes', async () => {
    const { client, model } = await serve(['Got it.']);
    const answer = await client.callTool({
      name: 'ask_helper',
      arguments: { message: `card ${CARD_NUMBER}` },
    });
    expect(answer.isError).toBeFalsy();
    expect(textOf(answer)).toBe('Got it.');
    expect(JSON.stringify(model.requests)).not.toContain('4111');
    expect(model.requests[0]!.messages).toEqual([{ role: 'user', content: 'card [redacted:card]' }]);
  });

  it('ask_<agent>: a tripwire answers an error result GUARDRAIL_TRIPPED, without the blocked text', async () => {
    const { client } = await serve(['This is internal only, do not share.']);
    const answer = await client.callTool({ name: 'ask_helper', arguments: { message: 'tell me' } });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toContain('GUARDRAIL_TRIPPED');
    expect(textOf(answer)).toContain('guardrail "block-internal only" tripped on the output');
    expect(JSON.stringify(answer)).not.toContain('do not share');
  });

  it('tools/call: the config’s tool guardrails redact arguments and output, and a trip is an error result', async () => {
    const { client } = await serve([]);
    const echoed = await client.callTool({ name: 'echo', arguments: { text: `pay ${CARD_NUMBER}` } });
    expect(echoed.isError).toBeFalsy();
    expect(JSON.stringify(echoed)).not.toContain('4111');
    expect(echoed.structuredContent).toEqual({ echoed: 'pay [redacted:card]' });

    const refused = await client.callTool({ name: 'echo', arguments: { text: 'forbidden words' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(
      'guardrail "block-forbidden" tripped on the tool-input: it says "forbidden" [GUARDRAIL_TRIPPED]',
    );
  });
});
