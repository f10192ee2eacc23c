import { afterEach } from 'vitest';
import type { Kernel, Plugin } from '../../../core/index.ts';
import cosmos from '../../../plugins/cosmos/index.ts';
import hubos, { type HubOSServerOptions } from '../../../plugins/hubos/index.ts';
import stars, { Stars } from '../../../plugins/stars/index.ts';
import { bootKernel, ScriptedModel, type ScriptStep } from '../../../testing/index.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

/** Templates `lead`, `w1`, `w2`, `w3`, each on its own ScriptedModel; the kernel is closed after each test. */
export async function bootTeam(
  scripts: Partial<Record<'lead' | 'w1' | 'w2' | 'w3', ScriptStep[]>> = {},
  plugins: Plugin[] = [],
) {
  const models = {
    lead: new ScriptedModel(scripts.lead ?? []),
    w1: new ScriptedModel(scripts.w1 ?? []),
    w2: new ScriptedModel(scripts.w2 ?? []),
    w3: new ScriptedModel(scripts.w3 ?? []),
  };
  const kernel = await bootKernel({
    plugins: [cosmos(), ...plugins],
    config: {
      agents: {
        lead: { description: 'Plans and delegates', instructions: 'Lead.', model: models.lead },
        w1: { description: 'Researches', instructions: 'Research.', model: models.w1 },
        w2: { description: 'Writes', instructions: 'Write.', model: models.w2 },
        w3: { description: 'Reviews', instructions: 'Review.', model: models.w3 },
      },
    },
  });
  kernels.push(kernel);
  const space = kernel.service('cosmos');
  return { kernel, models, cosmos: space };
}

/** A team `crew`: `leader` (template lead) and workers `alice` (w1) and `bob` (w2). */
export async function bootCrew(scripts: Parameters<typeof bootTeam>[0] = {}) {
  const setup = await bootTeam(scripts);
  const { cosmos: space } = setup;
  await space.create({ agentId: 'leader', templateId: 'lead' });
  await space.create({ agentId: 'alice', templateId: 'w1' });
  await space.create({ agentId: 'bob', templateId: 'w2' });
  const stars = new Stars(space, 'crew', { store: setup.kernel.store });
  stars.join('leader', 'leader');
  stars.join('alice', 'worker');
  stars.join('bob', 'worker');
  return { ...setup, stars };
}

/** A promise every party must reach before any goes on (fails after `ms` rather than hanging). */
export function barrier(parties: number, ms = 2_000): () => Promise<void> {
  let arrived = 0;
  let release!: () => void;
  const all = new Promise<void>((resolve) => {
    release = resolve;
  });
  return async () => {
    if (++arrived === parties) release();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`only ${arrived} of ${parties} reached the barrier`)), ms);
    });
    try {
      await Promise.race([all, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** Resolves once `check` holds (polling), or fails after `ms`. */
export async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * A kernel with cosmos, stars (team `crew`: crew-lead, crew-w1, crew-w2) and hubos with `server`
 * options, listening on a free port.
 */
export async function serveCrew(
  scripts: Parameters<typeof bootTeam>[0] = {},
  server: HubOSServerOptions = {},
) {
  const setup = await bootTeam(scripts, [
    stars({
      crew: {
        members: [
          { agent: 'lead', role: 'leader' },
          { agent: 'w1', role: 'worker' },
          { agent: 'w2', role: 'worker' },
        ],
      },
    }),
    hubos({ port: 0, rateLimit: false, ...server }),
  ]);
  const url = await setup.kernel.service('hubos').serve();
  return { ...setup, url, crew: setup.kernel.service('stars').get('crew')! };
}
