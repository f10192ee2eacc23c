import type {
  EventId,
  EventStore,
  StreamId,
} from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface EventStoreLimits {
  /** Most events kept; the oldest go first. */
  maxEvents: number;
  /** Most bytes (of the events' JSON) kept; an event larger than this is never kept. */
  maxBytes: number;
}

interface StoredEvent {
  seq: number;
  streamId: StreamId;
  message: JSONRPCMessage;
  bytes: number;
}

interface StreamState {
  /** Its events still kept. */
  kept: number;
  /** The last of its events that was dropped (0: none): a cursor before it cannot be resumed. */
  droppedAfter: number;
}

/**
 * One MCP session's recent server-to-client events, so a client whose SSE stream dropped can
 * reconnect with `Last-Event-ID` and get what it missed. Memory is bounded (events and bytes, the
 * oldest dropped first); a cursor whose stream lost events after it is refused, never resumed
 * with a gap. Event ids are `<stream>:<n>`: they name the stream, and mean nothing in another
 * session (each session has its own store).
 */
export class SessionEventStore implements EventStore {
  readonly #limits: EventStoreLimits;
  readonly #events: StoredEvent[] = [];
  readonly #streams = new Map<StreamId, StreamState>();
  #seq = 0;
  #bytes = 0;

  constructor(limits: EventStoreLimits) {
    this.#limits = limits;
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const seq = ++this.#seq;
    const bytes = jsonSize(message);
    let stream = this.#streams.get(streamId);
    if (bytes > this.#limits.maxBytes) {
      // Too large to keep: the stream cannot be resumed past it.
      if (stream) stream.droppedAfter = seq;
    } else {
      if (!stream) {
        stream = { kept: 0, droppedAfter: 0 };
        this.#streams.set(streamId, stream);
      }
      stream.kept += 1;
      this.#events.push({ seq, streamId, message, bytes });
      this.#bytes += bytes;
      this.#evict();
    }
    return `${streamId}:${seq}`;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.#resumable(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const cursor = this.#resumable(lastEventId);
    if (!cursor) throw new Error(`cannot resume after event ${lastEventId}: start a new request`);
    const missed = this.#events.filter(
      (event) => event.streamId === cursor.streamId && event.seq > cursor.seq && !isPriming(event.message),
    );
    for (const event of missed) await send(`${event.streamId}:${event.seq}`, event.message);
    return cursor.streamId;
  }

  /** The cursor an event id names, when its stream can be resumed from it without a gap. */
  #resumable(eventId: EventId): { streamId: StreamId; seq: number } | undefined {
    const colon = eventId.lastIndexOf(':');
    const streamId = eventId.slice(0, colon);
    const seq = Number(eventId.slice(colon + 1));
    if (colon <= 0 || !Number.isSafeInteger(seq) || seq < 1 || seq > this.#seq) return undefined;
    const stream = this.#streams.get(streamId);
    if (!stream || stream.droppedAfter > seq) return undefined;
    return { streamId, seq };
  }

  #evict(): void {
    while (this.#events.length > this.#limits.maxEvents || this.#bytes > this.#limits.maxBytes) {
      const oldest = this.#events.shift()!;
      this.#bytes -= oldest.bytes;
      const stream = this.#streams.get(oldest.streamId)!;
      stream.kept -= 1;
      stream.droppedAfter = oldest.seq;
      // A stream with nothing left cannot be resumed at all: forget it, so the map stays bounded too.
      if (stream.kept === 0) this.#streams.delete(oldest.streamId);
    }
  }
}

/** The empty event that opens a resumable stream: nothing to replay. */
function isPriming(message: JSONRPCMessage): boolean {
  return Object.keys(message).length === 0;
}

function jsonSize(message: JSONRPCMessage): number {
  try {
    return Buffer.byteLength(JSON.stringify(message));
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
