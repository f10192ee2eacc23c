/**
 * The text of an answer retried after its stream dropped: what was passed on stays passed on, and
 * the new answer's repeat of it is skipped. The request is sent again as it was (not with the
 * partial answer as a trailing assistant prefix: not every provider and model accepts one), so the
 * new answer starts over; while it repeats the text already passed on it is held back, and only what
 * goes beyond is passed on. When it words the start differently, the text already passed on cannot
 * be taken back: the new answer follows it whole, after a paragraph break.
 */
export class ResumedText {
  /** Everything passed on, across attempts. */
  #sent = '';
  /** The current attempt's text held back while it repeats `#sent`. */
  #held = '';
  #matching = false;

  /** A new attempt begins: its text is compared with what was passed on. */
  restart(): void {
    this.#held = '';
    this.#matching = this.#sent !== '';
  }

  /** What of the current attempt's `delta` to pass on ('' while it repeats). */
  push(delta: string): string {
    if (!this.#matching) {
      this.#sent += delta;
      return delta;
    }
    this.#held += delta;
    const held = this.#held;
    if (held.length <= this.#sent.length && this.#sent.startsWith(held)) {
      if (held.length === this.#sent.length) this.#through();
      return '';
    }
    this.#through();
    const out = held.startsWith(this.#sent) ? held.slice(this.#sent.length) : `\n\n${held}`;
    this.#sent += out;
    return out;
  }

  /** The attempt's answer ended: a shorter repeat of what was passed on adds nothing. */
  end(): void {
    this.#through();
  }

  #through(): void {
    this.#matching = false;
    this.#held = '';
  }
}
