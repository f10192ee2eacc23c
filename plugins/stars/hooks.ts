import { AsyncSeriesHook } from 'tapable';
import { createHooksAccessor, type TapMeta } from '../../core/index.ts';
import type { Stars } from './stars.ts';

/**
 * The stars plugin's own hooks, reached with `getStarsHooks(kernel)`: `teamCreated` when the
 * plugin has built a configured team (its members joined), before HubOS serves it.
 */
export const getStarsHooks = createHooksAccessor('stars', () => ({
  teamCreated: new AsyncSeriesHook<[{ stars: Stars }], TapMeta>(['context']),
}));

export type StarsHooks = ReturnType<typeof getStarsHooks>;
