// Guardrails of Stars members: each member runs its template's guardrails, and a member's trip
// stops the team run as it stops a run.
import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from '../../../core/index.ts';
import cosmos from '../../../plugins/cosmos/index.ts';
import { Stars } from '../../../plugins/stars/index.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../testing/index.ts';
import { blockTerm, CARD_NUMBER } from '../../guardrails/test-guardrails.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

async function crew(lead: ScriptStep[], worker: ScriptStep[]) {
  const models = { lead: new ScriptedModel(lead), worker: new ScriptedModel(worker) };
  const kernel = await bootKernel({
    plugins: [cosmos()],
    config: {
      agents: {
        lead: { description: 'Leads', model: models.lead, guardrails: { input: ['pii'] } },
        w1: {
          description: 'Works',
          model: models.worker,
          guardrails: { input: ['pii'], output: [blockTerm('confidential')] },
        },
      },
    },
  });
  kernels.push(kernel);
  const space = kernel.service('cosmos');
  await space.create({ agentId: 'leader', templateId: 'lead' });
  await space.create({ agentId: 'alice', templateId: 'w1' });
  const stars = new Stars(space, 'crew', { store: kernel.store });
  stars.join('leader', 'leader');
  stars.join('alice', 'worker');
  return { stars, models };
}

const delegate = (task: string) => ({
  toolCalls: [{ name: 'stars_delegate', input: { tasks: [{ worker: 'alice', task }] } }],
});

describe('guardrails of Stars members', () => {
  it('pii keeps a card number from the leader’s and the worker’s models', async () => {
    const { stars, models } = await crew([delegate(`Bill card ${CARD_NUMBER}`), 'Billed.'], ['Done.']);
    const result = await stars.run(`Bill ${CARD_NUMBER}`);
    expect(result.status).toBe('completed');
    expect(JSON.stringify(models.lead.requests[0])).not.toContain('4111');
    expect(JSON.stringify(models.worker.requests)).not.toContain('4111');
  });

  it('a worker’s trip fails the team run with GUARDRAIL_TRIPPED', async () => {
    const { stars, models } = await crew(
      [delegate('Summarize the file.'), 'never'],
      ['This is confidential.'],
    );
    const result = await stars.run('Go.');
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'GUARDRAIL_TRIPPED' });
    expect(result.error!.message).toContain('guardrail "block-confidential" tripped on the output');
    // The leader never heard the blocked answer.
    expect(models.lead.requests).toHaveLength(1);
  });
});
