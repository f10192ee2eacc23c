import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Kernel, Message, ModelRequest, Store } from '../../../core/index.ts';
import { eraseOwner } from '../../../plugins/hubos/erase-owner.ts';
import memory from '../../../plugins/memory/index.ts';
import { bootKernel, ScriptedModel } from '../../../testing/index.ts';

const WEEK = 7 * 86_400_000;
const NOW = Date.parse('2026-03-10T12:00:00Z');

/** The last tool result the model was given. */
const lastToolResult = (request: ModelRequest): string =>
  (request.messages.findLast((message) => message.role === 'tool') as Extract<Message, { role: 'tool' }>)
    .content;

/**
 * Memory across sessions, whichever store holds it: recall finds what the same key's same user said
 * a week earlier and nothing of another key's or another user's; working memory is read into the
 * instructions per key, user and agent; erasure removes both.
 */
export function memoryContract(name: string, fresh: () => Promise<Store>): void {
  describe(`memory on ${name}`, () => {
    const kernels: Kernel[] = [];
    afterEach(async () => {
      vi.useRealTimers();
      for (const kernel of kernels.splice(0)) await kernel.close();
    });

    async function boot(store: Store, model: ScriptedModel, extra: object = {}) {
      const kernel = await bootKernel({
        store,
        plugins: [memory()],
        config: { agents: { helper: { model, memory: {}, ...extra } } },
      });
      kernels.push(kernel);
      return kernel.getAgent('helper')!;
    }

    it("recalls a fact the same key's user said a week earlier, and nothing of another key's or user's", async () => {
      const store = await fresh();
      const model = new ScriptedModel();
      const agent = await boot(store, model);
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(NOW - WEEK);
      model.push('Noted.', 'Noted.', 'Noted.');
      await agent.run('My locker code is 4512.', {
        principal: 'key:alice',
        userId: 'u1',
        sessionId: 'key:alice~monday',
      });
      await agent.run('My locker code is 7777.', {
        principal: 'key:alice',
        userId: 'u2',
        sessionId: 'key:alice~other',
      });
      await agent.run('My locker code is 9999.', {
        principal: 'key:mallory',
        userId: 'u1',
        sessionId: 'key:mallory~x',
      });

      vi.setSystemTime(NOW);
      let recalled = '';
      model.push(
        { toolCalls: [{ name: 'memory_recall', input: { query: 'what is my locker code?' } }] },
        (request) => {
          recalled = lastToolResult(request);
          return 'It is 4512.';
        },
      );
      const result = await agent.run('What was my locker code?', {
        principal: 'key:alice',
        userId: 'u1',
        sessionId: 'key:alice~today',
      });
      expect(result.text).toBe('It is 4512.');
      expect(recalled).toContain('My locker code is 4512.');
      expect(recalled).toContain(new Date(NOW - WEEK).toISOString().slice(0, 10));
      expect(recalled).not.toContain('7777');
      expect(recalled).not.toContain('9999');

      // Another key asking the same finds only its own.
      model.push(
        { toolCalls: [{ name: 'memory_recall', input: { query: 'locker code 4512' } }] },
        (request) => {
          recalled = lastToolResult(request);
          return 'ok';
        },
      );
      await agent.run('What was my locker code?', {
        principal: 'key:mallory',
        userId: 'u1',
        sessionId: 'key:mallory~y',
      });
      expect(recalled).toContain('9999');
      expect(recalled).not.toContain('4512');
      model.assertConsumed();
    });

    it("keeps working memory per key, user and agent, read into the instructions, and erases it with the key's sessions", async () => {
      const store = await fresh();
      const model = new ScriptedModel();
      const agent = await boot(store, model, {
        instructions: 'You help.',
        memory: { working: { template: '# User\n- name:' } },
      });
      model.push(
        (request) => {
          expect(request.system).toMatch(
            /^You help\.\n\n## Working memory[\s\S]*# User\n- name:\n<\/working_memory>$/,
          );
          return { toolCalls: [{ name: 'memory_update', input: { memory: '# User\n- name: Ada' } }] };
        },
        (request) => {
          // The run's next call reads the new version.
          expect(request.system).toContain('- name: Ada');
          return 'Hello Ada.';
        },
      );
      await agent.run('I am Ada.', { principal: 'key:alice', userId: 'u1', sessionId: 'key:alice~s1' });

      const systems: string[] = [];
      const seeSystem = (request: ModelRequest) => {
        systems.push(request.system ?? '');
        return 'ok';
      };
      model.push(seeSystem, seeSystem, seeSystem, seeSystem);
      await agent.run('Hi', { principal: 'key:alice', userId: 'u1' });
      await agent.run('Hi', { principal: 'key:alice', userId: 'u2' });
      await agent.run('Hi', { principal: 'key:mallory', userId: 'u1' });
      await agent.run('Hi', { principal: 'key:alice' });
      expect(systems[0]).toContain('- name: Ada');
      for (const other of systems.slice(1)) expect(other).not.toContain('Ada');

      // A document over the size is refused (the model is told), and the kept one stays.
      model.push(
        { toolCalls: [{ name: 'memory_update', input: { memory: 'x'.repeat(9_000) } }] },
        (request) => {
          expect(lastToolResult(request)).toMatch(/memory|8000/);
          return 'ok';
        },
      );
      await agent.run('Remember a lot', { principal: 'key:alice', userId: 'u1' });

      const erased = await eraseOwner(store, 'key:alice');
      expect(erased.memories).toBe(1);
      expect(erased.sessions).toBe(1);
      model.push(
        seeSystem,
        { toolCalls: [{ name: 'memory_recall', input: { query: 'Ada' } }] },
        (request) => {
          systems.push(lastToolResult(request));
          return 'ok';
        },
      );
      await agent.run('Hi', { principal: 'key:alice', userId: 'u1' });
      await agent.run('Who am I?', { principal: 'key:alice', userId: 'u1', sessionId: 'key:alice~s2' });
      expect(systems.at(-2)).not.toContain('Ada');
      expect(systems.at(-1)).toBe('nothing found in earlier conversations');
      model.assertConsumed();
    });

    it('refuses a userId holding a control character (NUL) before the run, with what to send instead', async () => {
      const store = await fresh();
      const model = new ScriptedModel(['Noted.']);
      const agent = await boot(store, model);
      // PostgreSQL's text refuses NUL: such an id would fail the session's write after the answer.
      for (const userId of ['u\u00001', 'line\nbreak', 'x'.repeat(257)]) {
        const error = await agent
          .run('hello', { principal: 'key:alice', userId, sessionId: 'key:alice~nul' })
          .then(
            () => undefined,
            (e: unknown) => e as { code?: string; message?: string },
          );
        expect(error?.code, JSON.stringify(userId)).toBe('AGENT_INVALID');
        expect(error?.message).toBe(
          'agent "helper": userId must be 1 to 256 characters, none of them a control character (such as NUL or a line break)',
        );
      }
      const fine = await agent.run('hello', {
        principal: 'key:alice',
        userId: 'ü-1 ✓',
        sessionId: 'key:alice~nul',
      });
      expect(fine.text).toBe('Noted.');
    });
  });
}
