// The ScriptedModel example of docs/guide/testing.md (the README's tour has a shorter one), as written there
// (the clock plugin is imported from its fixture folder instead of node_modules).
import { expect, it } from 'vitest';
import { bootKernel, ScriptedModel } from '../../testing/index.ts';
import clock from '../fixtures/packages/hubos-plugin-clock/index.js';

it('runs the docs example of testing an agent with ScriptedModel', async () => {
  const model = new ScriptedModel([
    { toolCalls: [{ name: 'clock_now', input: { timezone: 'Asia/Tokyo' } }] }, // step 1: call a tool
    (request) => `It is ${JSON.parse(request.messages.at(-1)!.content).formatted}.`, // step 2: answer from the result
  ]);
  const kernel = await bootKernel({
    plugins: [clock()],
    config: { agents: { helper: { model, tools: ['clock_*'] } } },
  });
  const result = await kernel.agent('helper').run('What time is it in Tokyo?');
  expect(result.toolCalls[0]).toMatchObject({ name: 'clock_now', ok: true });
  expect(model.requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool', name: 'clock_now' });
  model.assertConsumed();
  await kernel.close();
  expect(result.text).toMatch(/^It is .*GMT\+9\.$/);
});
