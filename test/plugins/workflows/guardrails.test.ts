// Guardrails in workflows: an agent step runs its agent's guardrails; a tool step goes through
// kernel.tools, where the config's tool guardrails check it.
import { describe, expect, it } from 'vitest';
import { defineWorkflow } from '../../../plugins/workflows/index.ts';
import { blockTerm, CARD_NUMBER } from '../../guardrails/test-guardrails.ts';
import { bootWorkflows } from './helpers.ts';

describe('guardrails in workflow steps', () => {
  it('an agent step: pii keeps a card number from the model; a trip fails the workflow with GUARDRAIL_TRIPPED', async () => {
    const { workflows, models } = await bootWorkflows(
      [
        defineWorkflow({
          name: 'draft',
          steps: [{ id: 'write', kind: 'agent', agent: 'writer', input: 'Write to {{input.card}}.' }],
        }),
      ],
      { writer: ['A draft.', 'The secret plan is this.'] },
      {
        config: {
          guardrails: { input: ['pii'], output: [blockTerm('secret plan')] },
        },
      },
    );
    const ok = await workflows.get('draft')!.run({ card: CARD_NUMBER });
    expect(ok).toMatchObject({ status: 'completed' });
    expect(JSON.stringify(models.writer.requests)).not.toContain('4111');

    const tripped = await workflows.get('draft')!.run({ card: 'none' });
    expect(tripped.status).toBe('failed');
    expect(tripped.error).toMatchObject({ code: 'GUARDRAIL_TRIPPED', stepId: 'write' });
    expect(tripped.error!.message).toContain('guardrail "block-secret plan" tripped on the output');
  });

  it('a tool step: the config’s tool guardrails trip before the tool runs', async () => {
    const { workflows } = await bootWorkflows(
      [
        defineWorkflow({
          name: 'adder',
          steps: [{ id: 'sum', kind: 'tool', tool: 'add', input: { a: 13, b: 2 } }],
        }),
      ],
      {},
      { config: { guardrails: { tool: [blockTerm('13', { stages: ['tool-input'] })] } } },
    );
    const result = await workflows.get('adder')!.run({});
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'GUARDRAIL_TRIPPED', stepId: 'sum' });
    expect(result.error!.message).toContain('guardrail "block-13" tripped on the tool-input');
  });
});
