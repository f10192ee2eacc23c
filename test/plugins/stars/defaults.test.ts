import { expect, it } from 'vitest';
import { isPlugin } from '../../../core/index.ts';
import { defaultPlugins } from '../../../plugins/defaults.ts';
import stars from '../../../plugins/stars/index.ts';
import { bootTeam } from './helpers.ts';

// Plugins a config does not turn on are not loaded: the ones it turns on come as promises.
const names = async (config: Parameters<typeof defaultPlugins>[0]) =>
  (await Promise.all<unknown>(defaultPlugins(config))).filter(isPlugin).map((plugin) => plugin.name);

it('turns stars (and cosmos, which it needs) on when the config has a stars key, unless the config adds it', async () => {
  expect(await names({})).not.toContain('stars');
  expect(await names({ stars: {} })).toEqual(expect.arrayContaining(['cosmos', 'stars']));
  expect(await names({ stars: {}, plugins: [stars()] })).not.toContain('stars');
});

it('builds a configured team at startup with member ids of its own, and fails without cosmos', async () => {
  const { cosmos } = await bootTeam({}, [
    stars({
      duo: {
        members: [
          { agent: 'lead', role: 'leader', id: 'chief' },
          { agent: 'w1', role: 'worker' },
        ],
      },
    }),
  ]);
  expect(cosmos.list().map((a) => a.id)).toEqual(['chief', 'duo-w1']);
  const { bootKernel } = await import('../../../testing/index.ts');
  await expect(bootKernel({ plugins: [stars()] })).rejects.toThrow(/cosmos/);
});
