import { expect, it } from 'vitest';
import { isPlugin } from '../../../core/index.ts';
import cosmos from '../../../plugins/cosmos/index.ts';
import { defaultPlugins } from '../../../plugins/defaults.ts';

const names = (config: Parameters<typeof defaultPlugins>[0]) =>
  defaultPlugins(config)
    .filter(isPlugin)
    .map((plugin) => plugin.name);

it('turns the cosmos plugin on when the config has a cosmos key, unless the config adds it itself', () => {
  expect(names({})).not.toContain('cosmos');
  expect(names({ cosmos: {} })).toContain('cosmos');
  expect(names({ cosmos: {}, plugins: [cosmos({ maxAgents: 2 })] })).not.toContain('cosmos');
});
