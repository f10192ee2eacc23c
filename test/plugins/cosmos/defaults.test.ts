import { expect, it } from 'vitest';
import { isPlugin } from '../../../core/index.ts';
import cosmos from '../../../plugins/cosmos/index.ts';
import { defaultPlugins } from '../../../plugins/defaults.ts';

// Plugins a config does not turn on are not loaded: the ones it turns on come as promises.
const names = async (config: Parameters<typeof defaultPlugins>[0]) =>
  (await Promise.all<unknown>(defaultPlugins(config))).filter(isPlugin).map((plugin) => plugin.name);

it('turns the cosmos plugin on when the config has a cosmos key, unless the config adds it itself', async () => {
  expect(await names({})).not.toContain('cosmos');
  expect(await names({ cosmos: {} })).toContain('cosmos');
  expect(await names({ cosmos: {}, plugins: [cosmos({ maxAgents: 2 })] })).not.toContain('cosmos');
});
