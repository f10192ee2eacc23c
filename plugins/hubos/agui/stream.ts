import type { Event as AguiEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import { type Agent, HubosError } from '../../../core/index.ts';
import type { Principal } from '../kit/principal.ts';
import { sessionKey } from '../kit/session-key.ts';
import type { RunManager } from '../runs.ts';
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
    const signal = stop.signal;
    let finished: () => void = () => undefined;
    // Shutdown waits for this stream like for any run, and cancels it through `stop` at the deadline.
    runs.track(
      stop,
      new Promise<void>((resolve) => {
        finished = resolve;
      }),
    );
    const translator = new AguiTranslator(run.threadId, run.runId);
    const send = async (events: AguiEvent[]) => {
      for (const event of events) await out.write(encoder.encodeBinary({ ...event, timestamp: Date.now() }));
    };
    await send(translator.start());
    try {
      const options = {
        ...run.options,
        sessionId: sessionKey(principal.id, run.threadId),
        principal: principal.id,
        signal,
      };
      for await (const event of agent.stream(run.input, options)) {
        await send(translator.translate(event));
      }
      await send(translator.end());
    } catch (error) {
      await send(translator.fail(error));
    } finally {
      finished();
    }
  });
}
