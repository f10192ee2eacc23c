import type { Event as AguiEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import type { Principal, RunEngine as RunManager } from '../../../core/index.ts';
import { type Agent, HubosError } from '../../../core/index.ts';
import type { AguiRun } from './input.ts';
import { AguiTranslator } from './translate.ts';

/**
 * Runs the agent and answers its events as an AG-UI stream: SSE, or length-prefixed protobuf
 * when the Accept header asks for it (the encoder negotiates). The client going away cancels
 * the run. The thread is the caller's: the same threadId from another key is another conversation.
 */
export function streamRun(
  c: Context,
  agent: Agent,
  run: AguiRun,
  runs: RunManager,
  principal: Principal,
): Response {
  const encoder = new EventEncoder({ accept: c.req.header('accept') ?? '' });
  c.header('Content-Type', encoder.getContentType());
  c.header('Cache-Control', 'no-cache');
  // Proxies that buffer (nginx) would hold the events back until the run ends.
  c.header('X-Accel-Buffering', 'no');
  return stream(c, async (out) => {
    const stop = new AbortController();
    out.onAbort(() => stop.abort(new HubosError('RUN_CANCELLED', 'the client disconnected')));
    const translator = new AguiTranslator(run.threadId, run.runId);
    // Written one after another, in the order the run produced them.
    let writing = Promise.resolve();
    const send = (events: AguiEvent[]) => {
      writing = writing.then(async () => {
        for (const event of events)
          await out.write(encoder.encodeBinary({ ...event, timestamp: Date.now() }));
      });
      return writing;
    };
    await send(translator.start());
    try {
      const { sessionId: _ignored, ...options } = run.options;
      // A run with a record like any other: readable, cancellable and followable from any instance.
      const record = await runs.start(agent, run.input, {
        principal,
        sessionId: run.threadId,
        signal: stop.signal,
        via: 'ag-ui',
        run: { ...options, via: 'ag-ui' },
        listener: (event) => void send(translator.translate(event)),
      });
      const done = await runs.wait(record.id);
      if (done?.status === 'failed' && !done.result)
        throw new HubosError('RUN_FAILED', done.error?.message ?? 'the run failed');
      await send(translator.end());
    } catch (error) {
      await send(translator.fail(error));
    }
    await writing.catch(() => undefined);
  });
}
