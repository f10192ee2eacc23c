import { AsyncSeriesHook } from 'tapable';
import { createHooksAccessor, type TapMeta } from '../../core/index.ts';
import type { SubagentTypes } from './subagent-types.ts';

/**
 * The subagent plugin's own hooks, reached with `getSubagentHooks(kernel)`: `registerTypes` is
 * called with the `SubagentTypes` before the `task` tool is built (in the kernel's
 * `registerTools`): plugins `types.register(name, { description, instructions, tools, model, maxSteps })` there.
 */
export const getSubagentHooks = createHooksAccessor('subagent', () => ({
  registerTypes: new AsyncSeriesHook<[SubagentTypes], TapMeta>(['types']),
}));

export type SubagentHooks = ReturnType<typeof getSubagentHooks>;
