import { describe, expect, it } from 'vitest';
import { closestName, didYouMean } from '../../core/closest-name.ts';

describe('closestName', () => {
  it('offers the name a typo meant: a letter wrong, missing, extra or two swapped', () => {
    const known = ['list', 'run', 'resume', 'filesystem_read', 'assistant'];
    expect(closestName('lsit', known)).toBe('list');
    expect(closestName('Run', known)).toBe('run');
    expect(closestName('filesystem_reed', known)).toBe('filesystem_read');
    expect(closestName('asistant', known)).toBe('assistant');
    expect(closestName('assisstant', known)).toBe('assistant');
  });

  it('offers nothing for unrelated or short different names', () => {
    expect(closestName('frobnicate', ['serve', 'run'])).toBeUndefined();
    expect(closestName('ab', ['xy'])).toBeUndefined();
    expect(closestName('x', [])).toBeUndefined();
  });

  it('didYouMean ends a message the same way everywhere', () => {
    expect(didYouMean('serv', ['serve', 'run'], (name) => `hubos ${name}`)).toBe(
      ' (did you mean "hubos serve"?)',
    );
    expect(didYouMean('wrtier', new Set(['writer']))).toBe(' (did you mean "writer"?)');
    expect(didYouMean('zzz', ['writer'])).toBe('');
  });
});

describe('messages that reject an unknown name offer the closest one', () => {
  it('the registry, the kernel and the model providers', async () => {
    const { bootKernel } = await import('../../testing/index.ts');
    const kernel = await bootKernel({
      config: { model: 'offline', agents: { writer: {} } },
      plugins: [
        (await import('../../plugins/models/offline.ts')).default(),
        {
          name: 'tools',
          apply(k) {
            k.hooks.registerTools.tap('tools', (registry) =>
              registry.register({
                name: 'notes_add',
                description: 'Adds a note.',
                inputSchema: { type: 'object' },
                handler: () => 'ok',
              }),
            );
          },
        },
      ],
    });
    try {
      expect(() => kernel.registry.get('notes_ad')).toThrow(
        'no tool named "notes_ad" (did you mean "notes_add"?) (known tools: notes_add)',
      );
      expect(() => kernel.agent('wrtier')).toThrow(
        'no agent named "wrtier" (did you mean "writer"?) (agents: writer)',
      );
      expect(() => kernel.models.get('ofline')).toThrow(
        'no model provider "ofline" (did you mean "offline"?)',
      );
      expect(() => kernel.agent('zzz')).toThrow('no agent named "zzz" (agents: writer)');
    } finally {
      await kernel.close();
    }
  });
});
