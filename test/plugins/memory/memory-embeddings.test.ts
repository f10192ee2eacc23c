// Recall by meaning: memory.embeddings is a real AI SDK embedding model (@ai-sdk/openai-compatible)
// talking to a local server that speaks OpenAI's embeddings wire format. Its vectors put words of
// one meaning ("dog", "puppy") on one axis, so a query finds a message that shares none of its words.

import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Kernel, MemoryStore, type Message, type ModelRequest } from '../../../core/index.ts';
import { eraseOwner } from '../../../plugins/hubos/erase-owner.ts';
import memory from '../../../plugins/memory/index.ts';
import { bootKernel, ScriptedModel } from '../../../testing/index.ts';
import { type FakeServer, sendJSON, startServer } from '../models/server.ts';

const MEANINGS: Record<string, number> = {
  dog: 0,
  puppy: 0,
  hound: 0,
  car: 1,
  vehicle: 1,
  piano: 2,
  music: 2,
};

/** A vector of 4 dimensions: one per meaning, and one so no text is all zeros. */
function embed(text: string): number[] {
  const vector = [0, 0, 0, 0.01];
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? [])
    if (MEANINGS[word] !== undefined) vector[MEANINGS[word]!]! += 1;
  return vector;
}

const lastToolResult = (request: ModelRequest): string =>
  (request.messages.findLast((message) => message.role === 'tool') as Extract<Message, { role: 'tool' }>)
    .content;

describe('memory recall by meaning', () => {
  let server: FakeServer | undefined;
  let kernel: Kernel | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await kernel?.close();
    await server?.close();
  });

  it("finds the user's earlier message by meaning, not another key's, and erases the vectors", async () => {
    server = await startServer((request, res) => {
      const input = request.body.input as string[];
      sendJSON(res, 200, {
        object: 'list',
        data: input.map((text, index) => ({ object: 'embedding', index, embedding: embed(text) })),
        model: request.body.model,
        usage: { prompt_tokens: input.length, total_tokens: input.length },
      });
    });
    const embeddings = createOpenAICompatible({ name: 'local', baseURL: `${server.url}/v1` }).embeddingModel(
      'tiny',
    );
    const model = new ScriptedModel();
    const store = new MemoryStore();
    kernel = await bootKernel({
      store,
      plugins: [memory()],
      config: { memory: { embeddings }, agents: { helper: { model, memory: { working: false } } } },
    });
    const agent = kernel.getAgent('helper')!;
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2026-03-03T12:00:00Z'));
    model.push('Congratulations!', 'Nice.');
    await agent.run('We adopted a puppy called Rex.', {
      principal: 'key:alice',
      userId: 'u1',
      sessionId: 'key:alice~a',
    });
    await agent.run('We adopted a puppy called Fang.', {
      principal: 'key:bob',
      userId: 'u1',
      sessionId: 'key:bob~b',
    });
    expect(server.requests.map((r) => r.body.input.length)).toEqual([2, 2]);

    vi.setSystemTime(Date.parse('2026-03-10T12:00:00Z'));
    let recalled = '';
    model.push({ toolCalls: [{ name: 'memory_recall', input: { query: 'dog' } }] }, (request) => {
      recalled = lastToolResult(request);
      return 'Rex.';
    });
    await agent.run("What is my dog's name?", {
      principal: 'key:alice',
      userId: 'u1',
      sessionId: 'key:alice~c',
    });
    // "dog" is in no stored message: only its meaning finds Rex.
    expect(recalled).toContain('We adopted a puppy called Rex.');
    expect(recalled).toContain('2026-03-03');
    expect(recalled).not.toContain('Fang');

    const erased = await eraseOwner(store, 'key:alice');
    expect(erased.memories).toBe(4); // the two runs' user and assistant messages
    model.push({ toolCalls: [{ name: 'memory_recall', input: { query: 'dog' } }] }, (request) => {
      recalled = lastToolResult(request);
      return 'I do not know.';
    });
    await agent.run("What is my dog's name?", {
      principal: 'key:alice',
      userId: 'u1',
      sessionId: 'key:alice~d',
    });
    expect(recalled).toBe('nothing found in earlier conversations');
    model.assertConsumed();
  });

  it("prunes vectors older than the sessions' retention", async () => {
    server = await startServer((request, res) => {
      const input = request.body.input as string[];
      sendJSON(res, 200, { data: input.map((text, index) => ({ index, embedding: embed(text) })) });
    });
    const embeddings = createOpenAICompatible({ name: 'local', baseURL: `${server.url}/v1` }).embeddingModel(
      'tiny',
    );
    const model = new ScriptedModel();
    kernel = await bootKernel({
      plugins: [memory()],
      config: {
        memory: { embeddings },
        sessions: { retention: { maxAgeDays: 3 } },
        agents: { helper: { model, memory: { working: false } } },
      },
    });
    const agent = kernel.getAgent('helper')!;
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2026-03-03T12:00:00Z'));
    model.push('ok');
    await agent.run('My piano is black.', { principal: 'key:alice', sessionId: 'key:alice~old' });
    vi.setSystemTime(Date.parse('2026-03-10T12:00:00Z'));
    let recalled: string[] = [];
    const ask = () =>
      model.push({ toolCalls: [{ name: 'memory_recall', input: { query: 'music' } }] }, (request) => {
        recalled.push(lastToolResult(request));
        return 'ok';
      });
    ask();
    ask();
    await agent.run('What instrument?', { principal: 'key:alice', sessionId: 'key:alice~a' });
    expect(recalled[0]).toContain('My piano is black.');
    // That run's end pruned the week-old vectors, in the background.
    await vi.waitFor(async () => {
      recalled = [];
      ask();
      await agent.run('What instrument?', { principal: 'key:alice', sessionId: 'key:alice~b' });
      expect(recalled.at(-1)).not.toContain('piano');
    });
  });

  it('refuses an embeddings value that is not an embedding model, saying what to give', async () => {
    await expect(
      bootKernel({
        plugins: [memory()],
        config: {
          memory: { embeddings: { model: 'x' } as never },
          agents: { helper: { model: new ScriptedModel(), memory: {} } },
        },
      }),
    ).rejects.toThrow(/memory\.embeddings must be an AI SDK embedding model/);
  });
});
