import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Kernel, MemoryStore, type Message, type ModelRequest } from '../../core/index.ts';
import { openSessionTable } from '../../core/runs/open-run-table.ts';
import { bootKernel } from '../../testing/index.ts';
import { bootAgent, makeTool } from './helpers.ts';

const kernels: Kernel[] = [];
async function setup(...args: Parameters<typeof bootAgent>) {
  const booted = await bootAgent(...args);
  kernels.push(booted.kernel);
  return booted;
}

afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

const dir = mkdtempSync(join(tmpdir(), 'hubos-sessions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const user = (content: string): Message => ({ role: 'user', content });
const assistant = (content: string): Message => ({ role: 'assistant', content });

describe('sessions', () => {
  it('continues a conversation under the same session id', async () => {
    const { agent, model } = await setup({ script: ['Hello Ada.', 'You are Ada.'] });
    const first = await agent.run('I am Ada.', { sessionId: 'chat-1' });
    expect(first.sessionId).toBe('chat-1');
    const second = await agent.run('Who am I?', { sessionId: 'chat-1' });
    expect(model.requests[1]!.messages).toEqual([
      user('I am Ada.'),
      assistant('Hello Ada.'),
      user('Who am I?'),
    ]);
    // A run's result holds only what that run added.
    expect(second.messages).toEqual([user('Who am I?'), assistant('You are Ada.')]);
  });

  it('keeps sessions apart: by id, by agent, and with ids that share a prefix', async () => {
    const { kernel, agent, model } = await setup({ script: ['a1', 'b1', 'c1', 'd1', 'e1'] });
    await agent.run('to a', { sessionId: 'a' });
    await agent.run('to b', { sessionId: 'b' });
    await agent.run('to a/b', { sessionId: 'a/b' });
    const other = await kernel.createAgent({ name: 'other', model });
    await other.run('other to a', { sessionId: 'a' });
    await agent.run('again to a', { sessionId: 'a' });
    expect(model.requests.map((r) => r.messages.map((m) => m.content))).toEqual([
      ['to a'],
      ['to b'],
      ['to a/b'],
      ['other to a'],
      ['to a', 'a1', 'again to a'],
    ]);
  });

  it('stores nothing for a run without a session id', async () => {
    const { kernel, agent, model } = await setup({ script: ['one', 'two'] });
    const result = await agent.run('first');
    expect(result.sessionId).toBeUndefined();
    await agent.run('second');
    expect(model.requests[1]!.messages).toEqual([user('second')]);
    expect(await kernel.sessions.listOwned('local')).toEqual([]);
  });

  it("stores each message in the sessions table, in order, as the keyless caller's", async () => {
    const { kernel, agent } = await setup({
      tools: [makeTool('look', () => 'seen')],
      script: [{ toolCalls: [{ id: 'c1', name: 'look' }] }, 'done'],
    });
    await agent.run('look around', { sessionId: 's' });
    const stored = await (await openSessionTable(kernel.store)).load('assistant', 's');
    expect(stored).toEqual([
      user('look around'),
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'look', input: {} }] },
      { role: 'tool', toolCallId: 'c1', name: 'look', content: 'seen' },
      assistant('done'),
    ]);
    expect(await kernel.sessions.load('assistant', 's')).toEqual(stored);
    expect(await kernel.sessions.listOwned('local')).toMatchObject([
      { agent: 'assistant', sessionId: 's', messageCount: 4 },
    ]);
  });

  it("keeps a run's session as its principal's", async () => {
    const { kernel, agent } = await setup({ script: ['hi'] });
    await agent.run('hello', { sessionId: 'named', principal: 'key:abc' });
    expect((await kernel.sessions.listOwned('key:abc')).map((s) => s.sessionId)).toEqual(['named']);
    expect(await kernel.sessions.listOwned('local')).toEqual([]);
  });

  it('loses no message when two runs of one session run at once', async () => {
    const { kernel, agent } = await setup({
      script: [
        { delayMs: 10, text: 'first answer' },
        { delayMs: 20, text: 'second answer' },
      ],
    });
    await Promise.all([agent.run('one', { sessionId: 's' }), agent.run('two', { sessionId: 's' })]);
    const contents = (await kernel.sessions.load('assistant', 's')).map((m) => m.content);
    expect(contents.sort()).toEqual(['first answer', 'one', 'second answer', 'two']);
  });

  it('sends only the last `historyLimit` messages, starting at a user turn', async () => {
    const { agent, model } = await setup({
      config: { sessions: { historyLimit: 3 } },
      script: ['a1', 'a2', 'a3'],
    });
    await agent.run('u1', { sessionId: 's' });
    await agent.run('u2', { sessionId: 's' });
    await agent.run('u3', { sessionId: 's' });
    // The last 3 of [u1, a1, u2, a2] are [a1, u2, a2]: the history starts at u2.
    expect(model.requests[2]!.messages).toEqual([user('u2'), assistant('a2'), user('u3')]);
  });

  it('never starts a limited history with a tool result cut from its call', async () => {
    const { agent, model } = await setup({
      config: { sessions: { historyLimit: 2 } },
      tools: [makeTool('look')],
      script: [{ toolCalls: [{ name: 'look' }] }, 'done', 'next'],
    });
    await agent.run('u1', { sessionId: 's' });
    await agent.run('u2', { sessionId: 's' });
    // The last 2 of [u1, call, result, done] hold no user turn: nothing usable is left.
    expect(model.requests[2]!.messages).toEqual([user('u2')]);
  });

  it('keeps nothing with sessions.persist false', async () => {
    const store = new MemoryStore();
    const { agent, model } = await setup({
      config: { sessions: { persist: false } },
      options: { store },
      script: ['one', 'two'],
    });
    await agent.run('first', { sessionId: 's' });
    await agent.run('second', { sessionId: 's' });
    expect(model.requests[1]!.messages).toEqual([user('second')]);
    expect(await (await openSessionTable(store)).load('assistant', 's')).toEqual([]);
  });

  it('keeps the completed steps of a run that fails', async () => {
    const { agent, model } = await setup({
      tools: [makeTool('look', () => 'seen')],
      script: [{ toolCalls: [{ id: 'c1', name: 'look' }] }, { error: 'server gone' }, 'back again'],
    });
    await expect(agent.run('look', { sessionId: 's' })).rejects.toThrow('server gone');
    await agent.run('are you back?', { sessionId: 's' });
    expect(model.requests[2]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
  });
});

// ---- across processes, on one SQLite file ----

const child = fileURLToPath(new URL('../fixtures/agent/session-child.ts', import.meta.url));

interface ChildOutput {
  code: number | null;
  signal: NodeJS.Signals | null;
  lines: Record<string, unknown>[];
  stderr: string;
}

function runChild(args: string[], until?: (line: Record<string, unknown>) => boolean): Promise<ChildOutput> {
  return new Promise((resolve, reject) => {
    const proc: ChildProcess = spawn(process.execPath, [child, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: Record<string, unknown>[] = [];
    let stdout = '';
    let stderr = '';
    proc.stdout!.setEncoding('utf8').on('data', (data: string) => {
      stdout += data;
      let newline = stdout.indexOf('\n');
      while (newline !== -1) {
        const line = JSON.parse(stdout.slice(0, newline)) as Record<string, unknown>;
        stdout = stdout.slice(newline + 1);
        lines.push(line);
        if (until?.(line)) proc.kill('SIGKILL');
        newline = stdout.indexOf('\n');
      }
    });
    proc.stderr!.setEncoding('utf8').on('data', (data: string) => {
      stderr += data;
    });
    proc.on('error', reject);
    proc.on('close', (code, signal) => resolve({ code, signal, lines, stderr }));
  });
}

const requestOf = (output: ChildOutput) =>
  (output.lines.find((line) => 'request' in line)?.request ?? []) as ModelRequest['messages'];

describe('sessions across processes', () => {
  const step1 = (text: string): Message[] => [
    user(text),
    { role: 'assistant', content: '', toolCalls: [{ id: 'call_save', name: 'save', input: { text } }] },
    { role: 'tool', toolCallId: 'call_save', name: 'save', content: `saved ${text}` },
  ];

  it('a second process continues the session of the first', async () => {
    const db = join(dir, 'sequential.db');
    const first = await runChild([db, 'turn', 'chat', 'first turn']);
    expect(first.code, first.stderr).toBe(0);
    const second = await runChild([db, 'turn', 'chat', 'second turn']);
    expect(second.code, second.stderr).toBe(0);
    expect(requestOf(second)).toEqual([
      user('first turn'),
      assistant('reply to first turn'),
      user('second turn'),
    ]);
  });

  it('loses no completed step when the process exits in the middle of a run', async () => {
    const db = join(dir, 'crash.db');
    const crashed = await runChild([db, 'crash', 'chat', 'remember this']);
    expect(crashed.code).toBe(1);
    expect(crashed.lines).toEqual([]);
    const next = await runChild([db, 'turn', 'chat', 'still there?']);
    expect(next.code, next.stderr).toBe(0);
    expect(requestOf(next)).toEqual([...step1('remember this'), user('still there?')]);
  });

  it('loses no completed step when the process is killed while the model answers', async () => {
    const db = join(dir, 'killed.db');
    const killed = await runChild([db, 'hang', 'chat', 'keep me'], (line) => 'step' in line);
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.lines).toEqual([{ step: 2 }]);
    // The same file, opened here: the test process is the next one to use it.
    const kernel = await bootKernel({ store: undefined, config: { store: { driver: 'sqlite', path: db } } });
    kernels.push(kernel);
    expect(await kernel.sessions.load('keeper', 'chat')).toEqual(step1('keep me'));
  });
});
