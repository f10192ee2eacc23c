import { describe, expect, it } from 'vitest';
import { BUILT_IN_MODEL_LIMITS, limitsOf, modelLimitsTable } from '../../../core/model/model-limits.ts';
import { estimateTokens, tokenCounter, tokenFamily } from '../../../core/model/tokens.ts';

describe('token accounting', () => {
  it('tells the families apart', () => {
    expect(tokenFamily('openai:gpt-4.1-mini')).toBe('o200k');
    expect(tokenFamily('openai:o4-mini')).toBe('o200k');
    expect(tokenFamily('openai:gpt-4-turbo')).toBe('cl100k');
    expect(tokenFamily('anthropic:claude-sonnet-4-5')).toBe('estimate');
    expect(tokenFamily('offline')).toBe('estimate');
  });

  it("counts OpenAI's tokens with its own tokenizer", async () => {
    const counter = await tokenCounter('openai:gpt-4.1');
    expect(counter.exact).toBe(true);
    // "hello world" is two tokens in o200k_base.
    expect(counter.text('hello world')).toBe(2);
    expect(counter.text('')).toBe(0);
  });

  it('estimates the others, erring high', async () => {
    const counter = await tokenCounter('anthropic:claude-sonnet-4-5');
    expect(counter.exact).toBe(false);
    const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(100);
    const exact = (await tokenCounter('openai:gpt-4.1')).text(prose);
    expect(counter.text(prose)).toBe(estimateTokens(prose));
    expect(counter.text(prose)).toBeGreaterThan(exact);
  });

  it('counts a request: instructions, tools, messages and their tool calls', async () => {
    const counter = await tokenCounter('openai:gpt-4.1');
    const bare = counter.request({ messages: [{ role: 'user', content: 'hi' }] });
    const full = counter.request({
      system: 'Be brief.',
      tools: [{ name: 'add', description: 'adds', inputSchema: { type: 'object' } }],
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'add', input: { a: 1 } }] },
        { role: 'tool', toolCallId: 'c1', name: 'add', content: '2' },
      ],
    });
    expect(bare).toBeGreaterThan(0);
    expect(full).toBeGreaterThan(bare + 10);
  });
});

describe('model limits', () => {
  it('finds a dated release by its prefix, and the config over the list', () => {
    expect(limitsOf('anthropic:claude-sonnet-4-5-20250929', BUILT_IN_MODEL_LIMITS)?.contextWindow).toBe(
      200_000,
    );
    expect(limitsOf('openai:gpt-4.1-mini-2025-04-14', BUILT_IN_MODEL_LIMITS)?.contextWindow).toBe(1_047_576);
    expect(limitsOf('ollama:llama3', BUILT_IN_MODEL_LIMITS)).toBeUndefined();
    const table = modelLimitsTable({ llama3: { contextWindow: 8192, maxOutput: 2048 } });
    expect(limitsOf('ollama:llama3', table)).toEqual({ contextWindow: 8192, maxOutput: 2048 });
  });
});
