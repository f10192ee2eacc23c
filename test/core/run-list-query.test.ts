// A list's text search `q` as a URL gives it: 1 to 200 characters, searched for as written.
import { describe, expect, it } from 'vitest';
import { HubosError, parseRunQuery } from '../../core/index.ts';

function refusal(q: string): HubosError {
  try {
    parseRunQuery({ q });
  } catch (error) {
    if (HubosError.is(error)) return error;
    throw error;
  }
  throw new Error(`q ${JSON.stringify(q)} was taken`);
}

describe('parseRunQuery q', () => {
  it('takes 1 to 200 characters as they are, pattern characters, backslashes and quotes included', () => {
    for (const q of ['a', '%', '_', '\\', '100%_done', `it's "quoted"`, ' spaced ', 'x'.repeat(200)])
      expect(parseRunQuery({ q }).q).toBe(q);
    // Characters, not UTF-16 units: 200 emoji are 400 units and still a search.
    const emoji = '🔎'.repeat(200);
    expect(parseRunQuery({ q: emoji }).q).toBe(emoji);
    expect(parseRunQuery({ q: 'trip', agent: 'helper', limit: '5' })).toEqual({
      q: 'trip',
      agent: 'helper',
      limit: 5,
    });
    expect(parseRunQuery({}).q).toBeUndefined();
  });

  it('refuses an empty search, one over 200 characters and a NUL with RUN_QUERY_INVALID saying what fits', () => {
    const empty = refusal('');
    expect(empty.code).toBe('RUN_QUERY_INVALID');
    expect(empty.message).toContain('q is 0 characters long: search for 1 to 200 characters');
    const long = refusal('x'.repeat(201));
    expect(long.code).toBe('RUN_QUERY_INVALID');
    expect(long.message).toContain('q is 201 characters long');
    expect(refusal('🔎'.repeat(201)).message).toContain('q is 201 characters long');
    expect(refusal('a\u0000b').message).toContain('NUL');
  });
});
