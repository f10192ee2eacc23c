import { describe, expect, it } from 'vitest';
import { ModelRegistry } from '../../core/index.ts';
import { expectHubosError } from './helpers.ts';

describe('ModelRegistry', () => {
  it('registers providers by id and lists them in order', () => {
    const models = new ModelRegistry();
    const openai = { id: 'openai' };
    models.register(openai);
    models.register({ id: 'anthropic', description: 'Claude' });
    expect(models.get('openai')).toBe(openai);
    expect(models.has('anthropic')).toBe(true);
    expect(models.has('offline')).toBe(false);
    expect(models.list().map((p) => p.id)).toEqual(['openai', 'anthropic']);
  });

  it('rejects a second provider with the same id with MODEL_DUPLICATE', () => {
    const models = new ModelRegistry();
    models.register({ id: 'openai' });
    const error = expectHubosError(() => models.register({ id: 'openai' }), 'MODEL_DUPLICATE');
    expect(error.message).toContain('"openai"');
  });

  it('get() of an unknown id throws MODEL_NOT_FOUND listing the registered ones', () => {
    const models = new ModelRegistry();
    expect(expectHubosError(() => models.get('x'), 'MODEL_NOT_FOUND').message).toBe(
      'no model provider "x" (registered: none)',
    );
    models.register({ id: 'openai' });
    expect(expectHubosError(() => models.get('x'), 'MODEL_NOT_FOUND').message).toContain(
      'registered: openai',
    );
  });
});
