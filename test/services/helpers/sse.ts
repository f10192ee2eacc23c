/** One server-sent event: its `id:` (the event's number in the run), `event:` and `data:` parsed as JSON. */
export interface SSEFrame {
  id?: string;
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: frames are checked by the assertions.
  data: any;
}

/** Parses one SSE block (the lines between blank lines); undefined for a comment-only block. */
export function parseFrame(block: string): SSEFrame | undefined {
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0 && id === undefined) return undefined;
  const text = data.join('\n');
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: kept as the text.
  }
  return { ...(id !== undefined ? { id } : {}), event, data: parsed };
}

/**
 * Reads an SSE response frame by frame as it arrives, so a test can act in the middle of a stream
 * (read up to the approval request, decide it, read on).
 */
export class SSEReader {
  readonly frames: SSEFrame[] = [];
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = '';
  #done = false;

  constructor(response: Response) {
    if (!response.body) throw new Error(`no body to read (status ${response.status})`);
    const type = response.headers.get('content-type') ?? '';
    if (!type.includes('text/event-stream'))
      throw new Error(`not an event stream: status ${response.status}, content-type "${type}"`);
    this.#reader = response.body.getReader();
  }

  get ended(): boolean {
    return this.#done;
  }

  /** The next frame, or undefined once the stream has ended. */
  async next(): Promise<SSEFrame | undefined> {
    for (;;) {
      const end = this.#buffer.search(/\r?\n\r?\n/);
      if (end !== -1) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end).replace(/^\r?\n\r?\n/, '');
        const frame = parseFrame(block);
        if (frame) {
          this.frames.push(frame);
          return frame;
        }
        continue;
      }
      if (this.#done) {
        const rest = this.#buffer.trim();
        this.#buffer = '';
        const frame = rest ? parseFrame(rest) : undefined;
        if (frame) this.frames.push(frame);
        return frame;
      }
      const { value, done } = await this.#reader.read();
      if (done) this.#done = true;
      else this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  /** Reads until a frame matches (and returns it); fails if the stream ends first. */
  async until(match: (frame: SSEFrame) => boolean, what = 'a matching frame'): Promise<SSEFrame> {
    for (;;) {
      const frame = await this.next();
      if (!frame) throw new Error(`the stream ended before ${what}: got ${describeFrames(this.frames)}`);
      if (match(frame)) return frame;
    }
  }

  /** Reads to the end; resolves with every frame read (these and the earlier ones). */
  async rest(): Promise<SSEFrame[]> {
    while (await this.next());
    return this.frames;
  }

  /** Stops reading (closes the connection). */
  async cancel(): Promise<void> {
    this.#done = true;
    await this.#reader.cancel().catch(() => undefined);
  }
}

/** `event#id` of each frame, for failure messages. */
export function describeFrames(frames: SSEFrame[]): string {
  return frames.map((frame) => `${frame.event}${frame.id ? `#${frame.id}` : ''}`).join(', ') || 'no frames';
}
