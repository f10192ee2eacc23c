import type { Guardrail, GuardrailContext, GuardrailVerdictRecord } from './guardrail.ts';
import { GuardrailTripped, runGuardrails } from './run-guardrails.ts';

/** A piece of a streamed answer this long without a sentence's end ends at a whitespace. */
const LONGEST_PIECE = 2000;

/** What an answer's output check is given beside the text: the run's context, without the stage's parts. */
export type OutputContext = Omit<GuardrailContext, 'stage' | 'before' | 'final'>;

/**
 * Holds a streamed answer back until its output guardrails passed it. With only `sentence`
 * guardrails, text is released a piece (a sentence, a line) at a time, each piece checked with what
 * was released before it; with any `whole` one, nothing is released until the answer ended and
 * passed whole. What is released (rewritten where a guardrail rewrote it) is all the caller and
 * the session ever see of the answer.
 */
export class OutputHold {
  readonly #guardrails: readonly Guardrail[];
  readonly #ctx: OutputContext;
  readonly #release: (text: string) => void;
  readonly #onVerdicts: (verdicts: GuardrailVerdictRecord[]) => void;
  readonly #whole: boolean;
  #pending = '';
  /** How far `#pending` was scanned for a piece's end. */
  #scanned = 0;
  #released = '';
  #checks = 0;
  /** One verdict per guardrail, over every piece it checked. */
  readonly #verdicts: (GuardrailVerdictRecord | undefined)[];

  constructor(
    guardrails: readonly Guardrail[],
    ctx: OutputContext,
    release: (text: string) => void,
    onVerdicts: (verdicts: GuardrailVerdictRecord[]) => void,
  ) {
    this.#guardrails = guardrails;
    this.#ctx = ctx;
    this.#release = release;
    this.#onVerdicts = onVerdicts;
    this.#whole = guardrails.some((guardrail) => guardrail.streaming !== 'sentence');
    this.#verdicts = guardrails.map(() => undefined);
  }

  /** Takes a streamed part of the answer; releases the pieces it completes once they passed. */
  async push(delta: string): Promise<void> {
    this.#pending += delta;
    if (this.#whole) return;
    for (let end = this.#pieceEnd(); end !== -1; end = this.#pieceEnd()) {
      const piece = this.#pending.slice(0, end);
      this.#pending = this.#pending.slice(end);
      this.#scanned = 0;
      await this.#check(piece, false);
    }
  }

  /** The answer ended: checks what is still held; resolves with the whole answer as released. */
  async end(): Promise<string> {
    const rest = this.#pending;
    this.#pending = '';
    if (rest !== '') await this.#check(rest, this.#released === '');
    if (this.#checks > 0) this.#onVerdicts(this.#summary());
    return this.#released;
  }

  async #check(piece: string, final: boolean): Promise<void> {
    this.#checks++;
    let value: unknown;
    let verdicts: GuardrailVerdictRecord[];
    try {
      ({ value, verdicts } = await runGuardrails(this.#guardrails, piece, {
        ...this.#ctx,
        stage: 'output',
        before: this.#released,
        final: final || this.#whole,
      }));
    } catch (error) {
      if (error instanceof GuardrailTripped) {
        this.#count(error.verdicts);
        const summary = this.#summary();
        this.#onVerdicts(summary);
        const { guardrail, stage, reason } = error.details as {
          guardrail: string;
          stage: 'output';
          reason: string;
        };
        throw new GuardrailTripped(guardrail, stage, reason, summary);
      }
      throw error;
    }
    this.#count(verdicts);
    const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
    this.#released += text;
    if (text !== '') this.#release(text);
  }

  /**
   * Adds one check's verdicts to each guardrail's: a trip over a rewrite over a pass, its reason
   * kept. Every guardrail here checks at `output`, so a check's i-th verdict is the i-th guardrail's.
   */
  #count(verdicts: readonly GuardrailVerdictRecord[]): void {
    for (let i = 0; i < verdicts.length; i++) {
      const verdict = verdicts[i]!;
      const seen = this.#verdicts[i];
      if (!seen) {
        this.#verdicts[i] = { ...verdict, checks: 1 };
        continue;
      }
      seen.checks = (seen.checks ?? 0) + 1;
      if (RANK[verdict.action] >= RANK[seen.action]) {
        seen.action = verdict.action;
        if (verdict.reason) seen.reason = verdict.reason;
      }
    }
  }

  #summary(): GuardrailVerdictRecord[] {
    return this.#verdicts.filter((verdict) => verdict !== undefined);
  }

  /**
   * Where the first piece held ends (an index into `#pending`), or -1: after `.`, `!` or `?` and
   * the whitespace that follows, after a newline, or, in a piece grown long without one, after a
   * whitespace that is not between two characters of a number (digits, `+`, `(`, `)`).
   */
  #pieceEnd(): number {
    const text = this.#pending;
    for (let i = this.#scanned; i < text.length; i++) {
      const char = text[i]!;
      if (char === '\n') return i + 1;
      if ((char === '.' || char === '!' || char === '?') && i + 1 < text.length && isSpace(text[i + 1]!))
        return i + 2;
    }
    // The last character may end a sentence once the next one comes: scanned again then.
    this.#scanned = Math.max(0, text.length - 1);
    if (text.length < LONGEST_PIECE) return -1;
    let cut = -1;
    for (let i = 1; i + 1 < text.length; i++) {
      if (!isSpace(text[i]!) || (inNumber(text[i - 1]!) && inNumber(text[i + 1]!))) continue;
      if (i + 1 > LONGEST_PIECE && cut !== -1) break;
      cut = i + 1;
      if (i + 1 >= LONGEST_PIECE) break;
    }
    return cut;
  }
}

const RANK = { pass: 0, rewrite: 1, trip: 2 } as const;

const isSpace = (char: string) =>
  char === ' ' || char === '\t' || char === '\r' || char === '\n' || /\s/.test(char);
/** Part of how numbers are written (`+44 (0)20 7946 0958`, `4111 1111 1111 1111`): no cut beside it. */
const inNumber = (char: string) =>
  (char >= '0' && char <= '9') || char === '(' || char === ')' || char === '+';
