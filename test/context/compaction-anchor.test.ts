// Where a stored summary ends, found again in a history loaded shorter (sessions.historyLimit): a
// later message that reads the same as its last one must not be taken for it, or the messages
// between (a task the user gave) would be neither in the summary nor sent.
import { describe, expect, it } from 'vitest';
import { Compaction } from '../../core/context/compaction.ts';
import { anchorOf, summaryKey, summaryTable } from '../../core/context/summary-store.ts';
import { MemoryStore, type Message } from '../../core/index.ts';
import { ScriptedModel } from '../../testing/index.ts';

const user = (content: string): Message => ({ role: 'user', content });
const done: Message = { role: 'assistant', content: 'Done.' };

describe("a stored summary's end in a shorter history", () => {
  it.each([
    ['kept before summaries told their first message', {}],
    // Written from a longer history: its end's old position holds a later "Done." now.
    ['whose first message is not the history’s', { through: 4 }],
  ])('is never placed past a message the summary does not cover (a summary %s)', async (_, overrides) => {
    const store = new MemoryStore();
    // The summary covers the session's first six messages; the last is "Done.".
    const covered = [
      user(`a ${'x'.repeat(600)}`),
      done,
      user('b'),
      { ...done, content: 'x' },
      user(`c ${'y'.repeat(600)}`),
      done,
    ];
    await summaryTable(store).put(summaryKey('helper', 'alice~s'), {
      agent: 'helper',
      sessionId: 'alice~s',
      owner: 'alice',
      summary: 'The user talked about a, b and c.',
      through: covered.length,
      anchor: anchorOf(covered.at(-1)!),
      model: 'scripted:scripted',
      updatedAt: Date.now(),
      ...('through' in overrides ? { first: anchorOf(covered[0]!) } : {}),
      ...overrides,
    });
    const task = user('IMPORTANT: ship the release tonight');
    const input = user('and now?');
    // Loaded with a history limit: the first four are gone, and a later "Done." reads as the anchor.
    const all = [covered[4]!, covered[5]!, task, { ...done }, input];
    const compaction = new Compaction({
      agent: 'helper',
      config: { threshold: 0.8, keepTurns: 2, contextWindow: 200, explicit: true },
      limits: {},
      store,
      persist: true,
    });
    const run = compaction.start({
      runId: 'r1',
      sessionId: 'alice~s',
      principal: 'alice',
      model: new ScriptedModel([]),
      modelRef: 'scripted:scripted',
      pinned: input,
      signal: new AbortController().signal,
      emit: () => undefined,
      addUsage: () => undefined,
    })!;
    const view = await run.messages(1, all, { tools: [] });
    expect(view[0]!.content).toContain('The user talked about a, b and c.');
    expect(view.slice(1)).toEqual([task, done, input]);
  });
});
