import type { ApprovalRecord, RunLogEntry } from '../../../core/index.ts';
import type { AskedRequest } from './input-required.ts';
import type { TaskUpdates } from './task-updates.ts';

/** Why a turn stopped following its run: it asks a human, the run ended, or its events stopped coming. */
export type TurnEnd = 'input-required' | 'ended' | 'stopped';

export interface TurnStart {
  /** The requests the task says it waits for where this turn takes it on (none when `working`). */
  pending: readonly string[];
  /**
   * Say where the task stands before anything else: `working`, or `input-required` again if the
   * run still waits (an answer's turn must end its response with one). A watcher stays silent
   * until something changes.
   */
  announce: boolean;
}

/**
 * Follows a run's events into task updates until the run waits for a human (`input-required`) or
 * ends. Whether it waits is read from the approvals themselves (`pendingOf`), never inferred from
 * the events alone: a turn may take the task on from an older event, after answers were given or
 * new questions asked, on any instance. The approval events only say when to look again.
 */
export class RunTranslator {
  readonly #updates: TaskUpdates;
  readonly #pendingOf: () => Promise<ApprovalRecord[]>;
  readonly #start: TurnStart;
  /** The requests the task last said it waits for; undefined while it works. */
  #said: string | undefined;

  constructor(updates: TaskUpdates, pendingOf: () => Promise<ApprovalRecord[]>, start: TurnStart) {
    this.#updates = updates;
    this.#pendingOf = pendingOf;
    this.#start = start;
    this.#said = start.pending.length > 0 ? keyOf(start.pending) : undefined;
  }

  async run(entries: AsyncIterable<RunLogEntry>): Promise<TurnEnd> {
    // A turn that starts its run (nothing said yet) looks when the run first asks.
    const looksFirst = this.#start.announce || this.#said !== undefined;
    if (looksFirst && (await this.#look(this.#start.announce))) return 'input-required';
    for await (const entry of entries) {
      if ('end' in entry) {
        this.#updates.finish(entry.end);
        return 'ended';
      }
      const { event, seq } = entry;
      this.#updates.onEvent(event, seq);
      if (event.type === 'approval-request') {
        if (await this.#look(false, event)) return 'input-required';
      } else if (event.type === 'approval-result') {
        // Withdrawn (the run is ending, mostly): nothing to say until the run says what comes next.
        if (await this.#look(false, undefined, event.status === 'cancelled')) return 'input-required';
        if (this.#said === undefined) this.#updates.approvalResult(event);
      }
    }
    return 'stopped';
  }

  /**
   * Says where the task stands now: `input-required` (true) when the run waits for answers other
   * than those the task already says (or always, with `announce`), `working` once nothing waits.
   */
  async #look(announce: boolean, asked?: AskedRequest, quietly = false): Promise<boolean> {
    // A store that cannot be read now says nothing: the request just heard of is taken at its word.
    const pending: AskedRequest[] | undefined = await this.#pendingOf().catch(() =>
      asked ? [asked] : undefined,
    );
    if (!pending) return false;
    if (pending.length > 0) {
      const key = keyOf(pending.map((request) => request.callId));
      if (!announce && key === this.#said) return false;
      this.#updates.inputRequired(pending);
      return true;
    }
    if (this.#said !== undefined || announce) {
      this.#said = undefined;
      this.#updates.working({ quietly: quietly && !announce });
    }
    return false;
  }
}

const keyOf = (callIds: readonly string[]) => [...callIds].sort().join('\n');
