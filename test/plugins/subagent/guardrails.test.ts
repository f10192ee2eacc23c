// A sub-agent keeps its caller's guardrails, and a trip in it stops the calling run too.
import { describe, expect, it } from 'vitest';
import { blockTerm, CARD_NUMBER } from '../../guardrails/test-guardrails.ts';
import { bootLead, task } from './helpers.ts';

describe('guardrails of sub-agents (task)', () => {
  it('a card number in a task never reaches the sub-agent’s model: it keeps the caller’s pii', async () => {
    const { agent, model } = await bootLead({
      script: [
        { toolCalls: [task(`Charge card ${CARD_NUMBER}`, 'general-purpose', 't1')] },
        'Charged.',
        'Done.',
      ],
      template: { guardrails: { input: ['pii'] } },
    });
    const result = await agent.run('charge my card');
    expect(result.text).toBe('Done.');
    // The lead and its sub-agent share the model: its second call is the sub-agent's.
    expect(JSON.stringify(model.requests[1])).not.toContain('4111');
    expect(model.requests[1]!.messages[0]).toEqual({ role: 'user', content: 'Charge card [redacted:card]' });
  });

  it('a trip in the sub-agent’s answer fails the calling run with GUARDRAIL_TRIPPED', async () => {
    const { agent, model } = await bootLead({
      script: [
        { toolCalls: [task('Find the launch codes', 'general-purpose', 't1')] },
        'The launch codes are 1234.',
        'never',
      ],
      template: { guardrails: { output: [blockTerm('launch codes are')] } },
    });
    const error = await agent.run('go').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'GUARDRAIL_TRIPPED' });
    expect((error as Error).message).toContain('guardrail "block-launch codes are" tripped on the output');
    // The lead's model never heard the blocked answer, nor got another turn.
    expect(model.requests).toHaveLength(2);
    expect(JSON.stringify(model.requests)).not.toContain('1234');
  });
});
