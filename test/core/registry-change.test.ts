import { describe, expect, it } from 'vitest';
import { Registry, type RegistryChange } from '../../core/index.ts';
import { selectTools } from '../../core/internal.ts';
import { expectHubosError, makeTool } from './helpers.ts';

describe('Registry: onChange', () => {
  it('reports what each register, registerBatch and unregister added or removed, until unsubscribed', () => {
    const registry = new Registry();
    const changes: { added: string[]; removed: string[] }[] = [];
    const off = registry.onChange((change: RegistryChange) =>
      changes.push({
        added: change.added.map((tool) => tool.name),
        removed: change.removed.map((tool) => tool.name),
      }),
    );
    registry.register(makeTool({ name: 'one' }));
    registry.registerBatch([makeTool({ name: 'two' }), makeTool({ name: 'three' })]);
    registry.unregister('two');
    registry.unregister('missing');
    off();
    registry.register(makeTool({ name: 'after' }));
    expect(changes).toEqual([
      { added: ['one'], removed: [] },
      { added: ['two', 'three'], removed: [] },
      { added: [], removed: ['two'] },
    ]);
  });

  it('is not called for a batch that fails, nor for an empty one', () => {
    const registry = new Registry();
    let calls = 0;
    registry.onChange(() => calls++);
    expect(() => registry.registerBatch([makeTool({ name: 'a' }), makeTool({ name: 'a' })])).toThrow();
    registry.registerBatch([]);
    expect(calls).toBe(0);
  });

  it('sees the registry already changed when called', () => {
    const registry = new Registry();
    const seen: boolean[] = [];
    registry.onChange(() => seen.push(registry.has('x')));
    registry.register(makeTool({ name: 'x' }));
    registry.unregister('x');
    expect(seen).toEqual([true, false]);
  });
});

describe('Registry: reserve', () => {
  it('lists reservations until they are released', () => {
    const registry = new Registry();
    const release = registry.reserve('github_', 'mcp:github');
    registry.reserve('fs_', 'other');
    expect(registry.reservations()).toEqual([
      { prefix: 'github_', owner: 'mcp:github' },
      { prefix: 'fs_', owner: 'other' },
    ]);
    release();
    release();
    expect(registry.reservations()).toEqual([{ prefix: 'fs_', owner: 'other' }]);
  });

  it('refuses an empty prefix, which would cover every name', () => {
    expectHubosError(() => new Registry().reserve('', 'x'), 'TOOL_INVALID');
  });
});

describe('selectTools with reservations', () => {
  const tools = [makeTool({ name: 'notes_add' }), makeTool({ name: 'github_list' })];

  it('accepts a name or glob under a reserved prefix that matches nothing yet', () => {
    const reserved = [{ prefix: 'slack_', owner: 'mcp:slack' }];
    expect(selectTools('a', ['slack_*', 'slack_post', 'notes_*'], tools, { reserved })).toEqual([tools[0]]);
  });

  it('accepts a glob whose text before its * starts a reserved prefix (`*`, `sl*`)', () => {
    const reserved = [{ prefix: 'slack_', owner: 'mcp:slack' }];
    expect(selectTools('a', ['*'], [], { reserved })).toEqual([]);
    expect(selectTools('a', ['sl*_post'], tools, { reserved })).toEqual([]);
  });

  it('still fails for a pattern outside every reserved prefix, with the usual message', () => {
    const reserved = [{ prefix: 'slack_', owner: 'mcp:slack' }];
    for (const pattern of ['slac', 'slak*', 'sl?ck_*', 'notes_x']) {
      expectHubosError(() => selectTools('a', [pattern], tools, { reserved }), 'AGENT_INVALID');
    }
    const error = expectHubosError(() => selectTools('a', ['slac'], tools, { reserved }), 'AGENT_INVALID');
    expect(error.message).toBe(
      'agent "a": no registered tool matches "slac" (registered: notes_add, github_list)',
    );
  });

  it('selects what matches and never throws with allowUnmatched', () => {
    expect(selectTools('a', ['nothing_*', 'github_*'], tools, { allowUnmatched: true })).toEqual([tools[1]]);
  });
});
