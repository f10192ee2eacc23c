import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { givesUp, retryDelay } from '../../../plugins/mcp/client/backoff.ts';
import { callOutput, resultText } from '../../../plugins/mcp/client/call-result.ts';
import { childEnv } from '../../../plugins/mcp/client/child-env.ts';
import { StderrTail } from '../../../plugins/mcp/client/stderr-tail.ts';
import { hubosToolName, inputSchemaOf } from '../../../plugins/mcp/client/tool-adapter.ts';

describe('mcp client: pieces', () => {
  it('backs off exponentially from the initial delay, capped, and gives up only when told', () => {
    const restart = { initialDelayMs: 100, maxDelayMs: 1_000 };
    expect([1, 2, 3, 4, 5, 50].map((n) => retryDelay(n, restart))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
    expect(retryDelay(1)).toBe(1_000);
    expect(retryDelay(20)).toBe(60_000);
    expect(givesUp(1_000_000)).toBe(false);
    expect(givesUp(2, { maxAttempts: 3 })).toBe(false);
    expect(givesUp(3, { maxAttempts: 3 })).toBe(true);
  });

  it('names tools <prefix>_<tool> with only what model APIs accept, at most 64 characters', () => {
    expect(hubosToolName('gh', 'create_issue')).toBe('gh_create_issue');
    expect(hubosToolName('gh', 'repo.search/all')).toBe('gh_repo_search_all');
    expect(hubosToolName('', 'echo')).toBe('echo');
    expect(hubosToolName('p', 'x'.repeat(100))).toHaveLength(64);
  });

  it('makes the input schema an object schema without $schema and $id', () => {
    const tool = {
      name: 't',
      inputSchema: {
        type: 'object' as const,
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: 'urn:t',
        properties: { a: { type: 'string' } },
      },
    };
    expect(inputSchemaOf(tool)).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });

  it('turns results into what a model reads', () => {
    expect(
      callOutput({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toBe('a\n\nb');
    expect(
      callOutput({ content: [{ type: 'text', text: '{"n": 1}' }], structuredContent: { n: 1 } }),
    ).toEqual({
      n: 1,
    });
    expect(callOutput({ content: [], structuredContent: { n: 1 } })).toEqual({ n: 1 });
    expect(callOutput({ content: [{ type: 'text', text: 'one' }], structuredContent: { n: 1 } })).toEqual({
      text: 'one',
      structuredContent: { n: 1 },
    });
    expect(
      resultText({
        content: [
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
          { type: 'resource', resource: { uri: 'file:///b.txt', text: 'inline text' } },
        ],
      }),
    ).toBe('[image image/png, 3 bytes, not shown]\n\n[resource a.txt: file:///a.txt]\n\ninline text');
  });

  it('keeps the last stderr lines, the unfinished one too', async () => {
    const stream = new PassThrough();
    const tail = new StderrTail(stream, 3);
    stream.write('one\ntwo\n\nthree\r\nfour\nfi');
    stream.write('ve');
    await new Promise((resolve) => setImmediate(resolve));
    expect(tail.lines()).toEqual(['three', 'four', 'five']);
  });

  it('passes only the named variables on, copied or given', () => {
    const from = { SECRET: 's', NAMED: 'n' };
    expect(childEnv(undefined, from)).toEqual({});
    expect(childEnv(['NAMED', 'ABSENT'], from)).toEqual({ NAMED: 'n' });
    expect(childEnv({ TOKEN: 't' }, from)).toEqual({ TOKEN: 't' });
  });
});
