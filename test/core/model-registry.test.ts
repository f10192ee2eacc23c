import { describe, expect, it } from 'vitest';
import { type ModelProvider, ModelRegistry } from '../../core/index.ts';

const provider = (id: string, extra: Partial<ModelProvider> = {}): ModelProvider => ({
  id,
  languageModel: (modelId) => ({ provider: id, modelId, stream: async function* () {} }),
  ...extra,
});

import { expectHubosError } from './helpers.ts';

describe('ModelRegistry', () => {
  it('registers providers by id and lists them in order', () => {
    const models = new ModelRegistry();
    const openai = provider('openai');
    models.register(openai);
    models.register(provider('anthropic', { description: 'Claude' }));
    expect(models.get('openai')).toBe(openai);
    expect(models.has('anthropic')).toBe(true);
    expect(models.has('offline')).toBe(false);
    expect(models.list().map((p) => p.id)).toEqual(['openai', 'anthropic']);
  });

  it('rejects a second provider with the same id with MODEL_DUPLICATE', () => {
    const models = new ModelRegistry();
    models.register(provider('openai'));
    const error = expectHubosError(() => models.register(provider('openai')), 'MODEL_DUPLICATE');
    expect(error.message).toContain('"openai"');
  });

  it('get() of an unknown id throws MODEL_NOT_FOUND listing the registered ones', () => {
    const models = new ModelRegistry();
    expect(expectHubosError(() => models.get('x'), 'MODEL_NOT_FOUND').message).toBe(
      'no model provider "x" (registered: none)',
    );
    models.register(provider('openai'));
    expect(expectHubosError(() => models.get('x'), 'MODEL_NOT_FOUND').message).toContain(
      'registered: openai',
    );
  });
});

describe('ModelRegistry.resolve', () => {
  it("resolves 'provider:model' references through the provider", () => {
    const models = new ModelRegistry();
    models.register(provider('openai'));
    expect(models.resolve('openai:gpt-4.1-mini')).toMatchObject({
      provider: 'openai',
      modelId: 'gpt-4.1-mini',
    });
    expect(() => models.resolve('nope:x')).toThrow('no model provider "nope" (registered: openai)');
  });
});
