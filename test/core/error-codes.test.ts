import { describe, expect, it } from 'vitest';
import { CORE_ERROR_CODES, defineErrorCodes, errorCodeSpec, HubosError } from '../../core/index.ts';

describe('error codes', () => {
  it('an owner declares its codes with their statuses once, and raises them typed', () => {
    const errors = defineErrorCodes('test-billing', {
      BILLING_LIMIT: 402,
      BILLING_BUSY: { status: 503, headers: { 'retry-after': '9' } },
    });
    const limit = errors.create('BILLING_LIMIT', 'the monthly limit is reached', { details: { limit: 5 } });
    expect(limit).toBeInstanceOf(HubosError);
    expect([limit.code, limit.status, limit.headers, limit.details]).toEqual([
      'BILLING_LIMIT',
      402,
      {},
      { limit: 5 },
    ]);
    // A HubosError made anywhere with a declared code gets the declared status and headers.
    const busy = new HubosError('BILLING_BUSY', 'busy');
    expect([busy.status, busy.headers]).toEqual([503, { 'retry-after': '9' }]);
    expect(errorCodeSpec('BILLING_BUSY')).toMatchObject({ owner: 'test-billing', status: 503 });
    expect(Object.keys(errors.codes)).toEqual(['BILLING_LIMIT', 'BILLING_BUSY']);
  });

  it('a code belongs to one owner; bad names and statuses are refused with the fix', () => {
    defineErrorCodes('test-a', { TEST_SHARED: 400 });
    expect(() => defineErrorCodes('test-a', { TEST_SHARED: 400 })).not.toThrow();
    expect(() => defineErrorCodes('test-b', { TEST_SHARED: 409 })).toThrow(
      'error code "TEST_SHARED" of "test-b" is already declared by "test-a"',
    );
    expect(() => defineErrorCodes('test-b', { 'not-upper': 400 })).toThrow('use UPPER_SNAKE_CASE');
    expect(() => defineErrorCodes('test-b', { TEST_OK_STATUS: 200 })).toThrow(
      'an HTTP error status (400-599)',
    );
  });

  it('core declares only its own codes, with the statuses HubOS has always answered', () => {
    const codes = Object.keys(CORE_ERROR_CODES.codes);
    expect(codes).not.toContain('COSMOS_FULL');
    expect(codes).not.toContain('TEMPLATE_NOT_FOUND');
    expect(new HubosError('AGENT_NOT_FOUND', 'x').status).toBe(404);
    expect(new HubosError('AGENT_EXISTS', 'x').status).toBe(409);
    expect(new HubosError('MODEL_TIMEOUT', 'x').status).toBe(504);
    expect(new HubosError('MODEL_HTTP_ERROR', 'x').status).toBe(502);
    expect(new HubosError('CONFIG_INVALID', 'x').status).toBe(400);
  });

  it('an undeclared code is a 500 unless the error says otherwise', () => {
    expect(new HubosError('SOMETHING_ELSE', 'x').status).toBe(500);
    expect(new HubosError('SOMETHING_ELSE', 'x', { status: 418 }).status).toBe(418);
  });
});
