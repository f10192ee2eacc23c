import { afterEach, expect, it } from 'vitest';
import { post, type Served, serveHelper } from './helpers.ts';

let served: Served | undefined;
afterEach(async () => {
  await served?.kernel.close();
  served = undefined;
});

it('graceful shutdown waits for an AG-UI stream, then cancels it at the deadline', async () => {
  served = await serveHelper([{ toolCalls: [{ name: 'wait' }] }, 'never'], { shutdownTimeoutMs: 150 });
  const input = {
    threadId: 't1',
    runId: 'r1',
    messages: [{ id: 'm1', role: 'user', content: 'wait' }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  };
  const response = await post(`${served.url}/agui/helper`, input, { accept: 'text/event-stream' });
  const reader = response.body!.getReader();
  let seen = '';
  while (!seen.includes('TOOL_CALL_END')) seen += new TextDecoder().decode((await reader.read()).value);
  expect(served.hubos.runs.running).toBe(1);
  const started = Date.now();
  await served.hubos.close();
  expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  expect(served.hubos.runs.running).toBe(0);
});
