import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { executeTool } from '../../../core/index.ts';
import { bootMcp, fixtureServer } from './client-helpers.ts';

describe('MCP tool calls and the run signal', () => {
  it('leaves no listener behind on the signal a run shares across its calls', async () => {
    const kernel = await bootMcp({ servers: { fx: fixtureServer() } });
    const run = new AbortController();
    const env = { signal: run.signal, agentId: 'a', sandbox: kernel.sandbox, store: kernel.store };
    for (let i = 0; i < 20; i++) {
      const result = await executeTool(kernel.registry, 'fx_echo', { text: `call ${i}` }, env);
      expect(result).toEqual({ ok: true, output: `call ${i}` });
    }
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
  });
});
