import { describe, expect, it } from 'vitest';
import { errorMessage, HubosError } from '../../core/index.ts';

describe('HubosError', () => {
  it('carries a stable code, details and cause', () => {
    const cause = new Error('root');
    const error = new HubosError('TOOL_FAILED', 'tool "x" failed', { cause, details: { tool: 'x' } });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('HubosError');
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.message).toBe('tool "x" failed');
    expect(error.details).toEqual({ tool: 'x' });
    expect(error.cause).toBe(cause);
  });

  it('has empty details and no cause by default', () => {
    const error = new HubosError('KERNEL_STATE', 'nope');
    expect(error.details).toEqual({});
    expect('cause' in error).toBe(false);
  });

  it('HubosError.is() recognises any HubosError, optionally of one code', () => {
    const error = new HubosError('CONFIG_INVALID', 'bad');
    expect(HubosError.is(error)).toBe(true);
    expect(HubosError.is(error, 'CONFIG_INVALID')).toBe(true);
    expect(HubosError.is(error, 'CONFIG_NOT_FOUND')).toBe(false);
  });

  it('HubosError.is() recognises an error from another copy of the package by its brand', () => {
    const foreign = Object.assign(new Error('from elsewhere'), { code: 'PLUGIN_INVALID', details: {} });
    Object.defineProperty(foreign, Symbol.for('hubos.error'), { value: true });
    expect(foreign instanceof HubosError).toBe(false);
    expect(HubosError.is(foreign, 'PLUGIN_INVALID')).toBe(true);
  });

  it.each([new Error('plain'), { code: 'TOOL_FAILED' }, 'TOOL_FAILED', null, undefined])(
    'HubosError.is(%o) is false',
    (value) => {
      expect(HubosError.is(value)).toBe(false);
    },
  );
});

describe('errorMessage', () => {
  it.each([
    [new Error('an error'), 'an error'],
    ['a string', 'a string'],
    [{ status: 404 }, '{"status":404}'],
    [42, '42'],
    [null, 'null'],
    [undefined, 'undefined'],
  ])('describes %o as %j', (value, message) => {
    expect(errorMessage(value)).toBe(message);
  });

  it('survives values JSON cannot render', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(errorMessage(circular)).toBe('[object Object]');
    expect(errorMessage(10n)).toBe('10');
  });
});
