/**
 * Captures one output stream within a byte budget. It keeps the first and the last half of the
 * budget: the start says what ran, the end holds the error or summary a model needs most.
 * Memory stays bounded however much a command prints.
 */
export class OutputCap {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  #head: Buffer[] = [];
  #headBytes = 0;
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #total = 0;

  constructor(maxBytes: number) {
    this.#headLimit = Math.ceil(maxBytes / 2);
    this.#tailLimit = Math.floor(maxBytes / 2);
  }

  write(chunk: Buffer | string): void {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.#total += data.length;
    if (this.#headBytes < this.#headLimit) {
      const take = Math.min(data.length, this.#headLimit - this.#headBytes);
      this.#head.push(data.subarray(0, take));
      this.#headBytes += take;
      data = data.subarray(take);
    }
    if (data.length === 0 || this.#tailLimit === 0) return;
    this.#tail.push(data);
    this.#tailBytes += data.length;
    // Drop whole chunks that no longer reach into the last `tailLimit` bytes.
    while (this.#tail.length > 1 && this.#tailBytes - this.#tail[0]!.length >= this.#tailLimit) {
      this.#tailBytes -= this.#tail.shift()!.length;
    }
  }

  /** Bytes the command printed that `text()` leaves out. */
  get droppedBytes(): number {
    return Math.max(0, this.#total - this.#headLimit - this.#tailLimit);
  }

  /** The captured text; when bytes were dropped, a marker between head and tail says how many. */
  text(): string {
    const head = Buffer.concat(this.#head);
    const tail = Buffer.concat(this.#tail);
    if (this.droppedBytes === 0) return Buffer.concat([head, tail]).toString('utf8');
    // Cut on character boundaries so the text around the marker stays valid UTF-8.
    const headEnd = completeEnd(head);
    const tailStart = charBoundaryAfter(tail, tail.length - this.#tailLimit);
    const dropped = this.#total - headEnd - (tail.length - tailStart);
    return `${head.subarray(0, headEnd).toString('utf8')}\n[... ${dropped} more bytes dropped]\n${tail.subarray(tailStart).toString('utf8')}`;
  }
}

const isContinuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80;

/** Where `buffer` ends without a partial UTF-8 character: before an incomplete last sequence. */
function completeEnd(buffer: Buffer): number {
  let lead = buffer.length - 1;
  while (lead > 0 && buffer.length - lead < 4 && isContinuation(buffer[lead])) lead--;
  const byte = buffer[lead];
  if (byte === undefined || byte < 0x80) return buffer.length;
  const size = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
  return lead + size > buffer.length ? lead : buffer.length;
}

/** The smallest index >= at where a UTF-8 character starts. */
function charBoundaryAfter(buffer: Buffer, at: number): number {
  let index = Math.max(0, at);
  while (index < buffer.length && isContinuation(buffer[index])) index++;
  return index;
}
