import { PromptListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { HubosError } from '../../../core/index.ts';
import { connect, type Served, serveMcp } from './server-helpers.ts';

let served: Served | undefined;
const clients: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await served?.close();
  served = undefined;
});

async function setup(...args: Parameters<typeof serveMcp>) {
  served = await serveMcp(...args);
  const { kernel } = served;
  kernel.prompts.register({
    name: 'review',
    title: 'Review',
    description: 'Reviews a topic.',
    arguments: [
      { name: 'topic', description: 'What to review', required: true },
      { name: 'tone', description: 'How to say it' },
    ],
    get: ({ topic, tone = 'kind' }, { principal }) => ({
      description: `A ${tone} review`,
      messages: [
        { role: 'user', content: { type: 'text', text: `Review ${topic}, ${tone}ly, for ${principal}.` } },
        { role: 'assistant', content: { type: 'resource_link', uri: 'docs://guide', name: 'guide' } },
      ],
    }),
    complete: {
      topic: (typed, { arguments: given }) =>
        ['testing', 'tests', 'typing', given.tone ?? 'none'].filter((topic) => topic.startsWith(typed)),
    },
  });
  kernel.prompts.register({
    name: 'broken',
    description: 'Fails.',
    get: () => {
      throw new HubosError('PROMPT_NOT_FOUND', 'the broken prompt has no text');
    },
  });
  return served;
}

async function client(url: string) {
  const connected = await connect(url);
  clients.push(connected.client);
  return connected.client;
}

describe('prompts over MCP', () => {
  it("lists the registry's prompts and the served agents, and renders them", async () => {
    const { url } = await setup();
    const mcp = await client(url);
    expect(mcp.getServerCapabilities()).toMatchObject({ prompts: { listChanged: true }, completions: {} });
    const { prompts } = await mcp.listPrompts();
    expect(prompts).toEqual([
      {
        name: 'review',
        title: 'Review',
        description: 'Reviews a topic.',
        arguments: [
          { name: 'topic', description: 'What to review', required: true },
          { name: 'tone', description: 'How to say it' },
        ],
      },
      { name: 'broken', description: 'Fails.' },
      {
        name: 'ask_helper',
        description: 'Ask the agent "helper" (through the ask_helper tool): Knows the answers.',
        arguments: [{ name: 'message', description: 'What to ask or tell the agent.', required: true }],
      },
    ]);

    expect(await mcp.getPrompt({ name: 'review', arguments: { topic: 'the tests' } })).toEqual({
      description: 'A kind review',
      messages: [
        { role: 'user', content: { type: 'text', text: 'Review the tests, kindly, for local.' } },
        { role: 'assistant', content: { type: 'resource_link', uri: 'docs://guide', name: 'guide' } },
      ],
    });
    const agent = await mcp.getPrompt({ name: 'ask_helper', arguments: { message: 'What is 6 × 7?' } });
    expect(agent.messages).toEqual([
      {
        role: 'user',
        content: {
          type: 'text',
          text: 'Ask the agent "helper" with the ask_helper tool, and tell me its answer:\n\nWhat is 6 × 7?',
        },
      },
    ]);
  });

  it('says which required arguments are missing, which prompts exist, and why one failed', async () => {
    const { url } = await setup();
    const mcp = await client(url);
    await expect(mcp.getPrompt({ name: 'review', arguments: { tone: 'blunt' } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining(
        'the prompt "review" needs the argument "topic": pass them in `arguments` (it takes topic (required), tone)',
      ),
    });
    await expect(mcp.getPrompt({ name: 'ask_helper' })).rejects.toThrow('needs the argument "message"');
    await expect(mcp.getPrompt({ name: 'nope' })).rejects.toThrow(
      'no prompt named "nope" is served here (prompts: review, broken, ask_helper)',
    );
    await expect(mcp.getPrompt({ name: 'broken' })).rejects.toMatchObject({
      code: -32002,
      message: expect.stringContaining('the prompt "broken" failed: the broken prompt has no text'),
    });
  });

  it("completes prompt arguments with the prompt's completers, and nothing where it has none", async () => {
    const { url } = await setup();
    const mcp = await client(url);
    const complete = (name: string, argument: string, value: string, given: Record<string, string> = {}) =>
      mcp.complete({
        ref: { type: 'ref/prompt', name },
        argument: { name: argument, value },
        context: { arguments: given },
      });
    expect((await complete('review', 'topic', 'te')).completion).toEqual({
      values: ['testing', 'tests'],
      total: 2,
      hasMore: false,
    });
    expect((await complete('review', 'topic', 'te', { tone: 'terse' })).completion.values).toEqual([
      'testing',
      'tests',
      'terse',
    ]);
    expect((await complete('review', 'tone', '')).completion.values).toEqual([]);
    expect((await complete('ask_helper', 'message', 'wh')).completion.values).toEqual([]);
    await expect(complete('nope', 'x', '')).rejects.toThrow('no prompt named "nope"');
  });

  it('serves only serve.prompts, announces list changes, and declares no prompts when none are served', async () => {
    const { url, kernel } = await setup({ mcp: { serve: { prompts: ['rev*', 'late_*'], agents: false } } });
    const mcp = await client(url);
    expect((await mcp.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['review']);
    await expect(mcp.getPrompt({ name: 'broken' })).rejects.toThrow('no prompt named "broken"');

    let heard!: () => void;
    const changed = new Promise<void>((resolve) => {
      heard = resolve;
    });
    mcp.setNotificationHandler(PromptListChangedNotificationSchema, () => heard());
    // The client opens its event stream in the background: add prompts until an announcement lands.
    for (let i = 0; ; i++) {
      kernel.prompts.register({
        name: `late_${i}`,
        get: () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'late' } }] }),
      });
      const timer = new Promise((resolve) => setTimeout(() => resolve('again'), 200));
      if ((await Promise.race([changed.then(() => 'done'), timer])) === 'done') break;
    }
    const names = (await mcp.listPrompts()).prompts.map((prompt) => prompt.name);
    expect(names[0]).toBe('review');
    expect(names.slice(1).every((name) => name.startsWith('late_'))).toBe(true);
    await served!.close();

    served = await serveMcp({ mcp: { serve: { prompts: false, agents: false } } });
    const none = await client(served.url);
    expect(none.getServerCapabilities()?.prompts).toBeUndefined();
    await expect(none.listPrompts()).rejects.toThrow();
  });
});

describe('prompts under the permission policy', () => {
  it('leaves out a denied prompt, refuses getting it, and asks about one under `ask`', async () => {
    const { url, kernel } = await setup();
    const text = (words: string) => ({
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: words } }],
    });
    kernel.prompts.register({ name: 'sealed', permissions: ['fs:delete'], get: () => text('secret') });
    kernel.prompts.register({ name: 'drafts', permissions: ['fs:write'], get: () => text('drafts') });
    const mcp = await client(url);
    const names = (await mcp.listPrompts()).prompts.map((prompt) => prompt.name);
    expect(names).toContain('drafts');
    expect(names).not.toContain('sealed');
    await expect(mcp.getPrompt({ name: 'sealed' })).rejects.toThrow(
      `the permission policy denies getting the prompt "sealed": fs:delete`,
    );
    await expect(mcp.getPrompt({ name: 'drafts' })).rejects.toThrow(
      `getting the prompt "drafts" needs approval (fs:write (rule ask 'fs:write')), and this MCP client cannot ask you for it`,
    );
  });
});
