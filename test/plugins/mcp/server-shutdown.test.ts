import { describe, expect, it } from 'vitest';
import { connect, serveMcp, textOf } from './server-helpers.ts';

describe('/mcp during a shutdown', () => {
  it('answers a call still running past the drain with a result saying so, rather than leaving the client waiting', async () => {
    const served = await serveMcp({ server: { shutdownTimeoutMs: 300 } });
    const { client } = await connect(served.url);
    const started = Date.now();
    const call = client
      .callTool({ name: 'wait', arguments: {} }, undefined, { timeout: 20_000 })
      .then((result) => ({ isError: result.isError, text: textOf(result) }));
    await served.probe.waiting.opened;
    const closing = served.kernel.close();
    const answer = await call;
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain('HubOS is shutting down');
    expect(Date.now() - started).toBeLessThan(10_000);
    await closing;
  });

  it("lets a session's answer to an approval through while the server drains, so the call finishes", async () => {
    const served = await serveMcp({ server: { shutdownTimeoutMs: 10_000 } });
    let answerNow!: () => void;
    const gate = new Promise<void>((resolve) => {
      answerNow = resolve;
    });
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const { client } = await connect(served.url, {
      answer: async () => {
        asked();
        await gate;
        return { action: 'accept', content: { approve: true } };
      },
    });
    const call = client
      .callTool({ name: 'filesystem_write', arguments: { path: 'a.txt', content: 'x' } }, undefined, {
        timeout: 30_000,
      })
      .then((result) => ({ isError: result.isError, text: textOf(result) }));
    await wasAsked;
    const stopping = served.kernel.service('hubos').close();
    answerNow();
    const answer = await call;
    expect(answer.isError).toBeFalsy();
    await stopping;
    await served.close();
  });
});
