import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { HubosError } from '../../core/index.ts';
import { snippet } from './http.ts';

export interface SSEEvent {
  /** The `event:` field; `message` when the server sent none (as browsers do). */
  event: string;
  data: string;
}

// A single event larger than this is a broken or hostile stream, not a model answer.
const MAX_BUFFER = 16 * 1024 * 1024;

/**
 * Reads a response body as Server-Sent Events. Events are yielded as soon as their blank line
 * arrives, so a slow model streams token by token; a last event without one is still delivered.
 */
export async function* readSSE(
  chunks: AsyncIterable<Uint8Array | string>,
  provider: string,
): AsyncGenerator<SSEEvent> {
  const pending: SSEEvent[] = [];
  let failure: HubosError | undefined;
  const parser = createParser({
    maxBufferSize: MAX_BUFFER,
    onEvent: (message: EventSourceMessage) =>
      pending.push({ event: message.event ?? 'message', data: message.data }),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') {
        failure = new HubosError(
          'MODEL_RESPONSE_INVALID',
          `${provider} sent a stream event larger than ${MAX_BUFFER} bytes`,
          { details: { provider } },
        );
      }
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of chunks) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    if (failure) throw failure;
    // Hand over what this chunk completed before reading on: a model streams token by token.
    yield* pending.splice(0);
  }
  parser.feed(decoder.decode());
  parser.reset({ consume: true });
  yield* pending.splice(0);
}

/** One event's JSON data; a chunk that is not JSON is a broken stream, reported with its start. */
export function parseEventJSON(data: string, provider: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new HubosError(
      'MODEL_RESPONSE_INVALID',
      `${provider} sent a stream chunk that is not JSON: ${snippet(data)}`,
      {
        details: { provider },
      },
    );
  }
}

/** Streamed tool arguments: empty means no arguments (`{}`); text that is not JSON is kept raw for the model to see. */
export function parseToolInput(json: string): unknown {
  if (json.trim() === '') return {};
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}
