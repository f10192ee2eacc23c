import type { ApprovalCursor, ApprovalQuery, ApprovalTable } from '../approvals/approval-table.ts';
import type { Bus } from '../bus/bus.ts';
import { errorMessage, HubosError } from '../errors.ts';
import { describeErrors, type JSONSchemaObject, SchemaCompilers } from '../json-schema.ts';
import { openApprovalTable } from '../runs/open-run-table.ts';
import { RunHandedOver } from '../runs/run-handed-over.ts';
import type { Store, StoreValue } from '../store/store.ts';

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'cancelled';

/** One tool call waiting for (or given) a human decision, as kept in the store. */
export interface ApprovalRecord {
  runId: string;
  agent: string;
  sessionId?: string;
  /** Who the run is for (`RunOptions.principal`): HubOS shows the approval to that caller only (and admins). */
  principal?: string;
  step: number;
  callId: string;
  tool: string;
  /** The input the tool would run with (validated, defaults applied). */
  input: unknown;
  permissions: string[];
  /** The policy pattern that asked. */
  rule?: string;
  /**
   * Set when the running tool asks the human a question (`tc.elicit`) rather than for permission:
   * approving answers it with fields that fit `schema` (the decision's `content`), denying declines it.
   */
  question?: ApprovalQuestion;
  requestedAt: string;
  expiresAt: string;
  status: ApprovalStatus;
  decidedAt?: string;
  /** Who decided it (`ApprovalDecision.by`: a principal's id), when the decision said so. */
  decidedBy?: string;
  reason?: string;
  /** The answer to `question`, schema defaults filled in (when approved). */
  answer?: Record<string, unknown>;
}

/** What a tool asks the human: a message and a flat object schema of the fields to fill in. */
export interface ApprovalQuestion {
  message: string;
  schema: JSONSchemaObject;
}

export interface ApprovalDecision {
  approved: boolean;
  reason?: string;
  /** Who decides (a principal's id): kept with the decision, and shown on the run's steps. */
  by?: string;
  /** The answer's fields, when the request carries a `question` (checked against its schema). */
  content?: Record<string, unknown>;
}

export type ApprovalRequest = Omit<ApprovalRecord, 'status' | 'requestedAt' | 'expiresAt' | 'decidedAt'>;

export interface ApprovalsOptions {
  /** How often a waiting call checks the store for a decision another process recorded (0: never). */
  pollMs?: number;
  /** Told when the store cannot be written: approvals still work in this process. */
  onError?: (message: string) => void;
  /**
   * Where decisions are announced: a decision made on any instance sharing the bus reaches the
   * instance whose run waits for it at once (the store poll is the fallback).
   */
  bus?: Bus;
  /** Where approvals are kept (default: the store's approvals table, beside its runs). */
  table?: Promise<ApprovalTable>;
}

const DECISIONS_CHANNEL = 'approvals:decided';

interface Waiter {
  record: ApprovalRecord;
  /** Set once decided, expired or cancelled; the final record is being stored. */
  final?: ApprovalRecord;
  /** Resolves once the request's write ended: true when it is stored (decisions then go through the store). */
  stored: Promise<boolean>;
  settle(status: ApprovalStatus, reason?: string, answer?: Record<string, unknown>, by?: string): void;
  /** Settles with a final record a decision already stored (it won the store's compare-and-set). */
  adopt(final: ApprovalRecord): void;
  written: Promise<ApprovalRecord>;
}

const key = (runId: string, callId: string) => `${runId}/${callId}`;
const now = () => new Date().toISOString();

/**
 * Pending approvals: one per kernel, shared by its agents. Each request is stored (a row of the
 * store's approvals table, beside its runs) before anyone hears of it, so it outlives the process,
 * and kept with its outcome after, so a second decision is refused rather than lost.
 */
export class Approvals {
  readonly #store: Store;
  readonly #options: ApprovalsOptions;
  readonly #waiting = new Map<string, Waiter>();
  #listening: Promise<(() => Promise<void>) | undefined> | undefined;
  #opened: Promise<ApprovalTable> | undefined;

  constructor(store: Store, options: ApprovalsOptions = {}) {
    this.#store = store;
    this.#options = options;
  }

  /** The approvals table, opened (and migrated, old records moved in) at first use. @internal */
  table(): Promise<ApprovalTable> {
    if (!this.#opened) {
      const opening = this.#options.table ?? openApprovalTable(this.#store);
      this.#opened = opening;
      // A failed open is tried again at the next use.
      opening.catch(() => {
        if (this.#opened === opening) this.#opened = undefined;
      });
    }
    return this.#opened;
  }

  /** Whether a decision recorded here reaches a run waiting on another instance right away. */
  get shared(): boolean {
    return this.#options.bus?.shared ?? false;
  }

  /**
   * Stores the request, calls `onOpen` (where the caller announces it), then waits for a decision,
   * the timeout (`expired`) or the signal (`cancelled`). Resolves with the final, stored record.
   * The agent loop asks here; a caller decides with `decide()`.
   * @internal
   */
  request(
    request: ApprovalRequest,
    options: {
      signal: AbortSignal;
      timeoutMs: number;
      onOpen?: (record: ApprovalRecord) => void;
      /** The request as stored by an earlier attempt of the run: waited for as it is, not asked anew. */
      adopt?: ApprovalRecord;
    },
  ): Promise<ApprovalRecord> {
    const { signal, adopt } = options;
    if (adopt && adopt.status !== 'pending') return Promise.resolve(adopt);
    // setTimeout fires at once past 2^31-1 ms (about 24 days): cap rather than expire immediately.
    const started = Date.now();
    const timeoutMs = Math.min(
      Math.max(adopt ? Date.parse(adopt.expiresAt) - started : options.timeoutMs, 1),
      2_147_483_647,
    );
    const record: ApprovalRecord = adopt ?? {
      ...request,
      status: 'pending',
      requestedAt: new Date(started).toISOString(),
      expiresAt: new Date(started + timeoutMs).toISOString(),
    };
    const id = key(record.runId, record.callId);
    this.#listen();
    let resolve!: (outcome: { final: ApprovalRecord; stored: boolean }) => void;
    const decided = new Promise<{ final: ApprovalRecord; stored: boolean }>((res) => {
      resolve = res;
    });
    let markStored!: (stored: boolean) => void;
    const stored = new Promise<boolean>((res) => {
      markStored = res;
    });
    // A run handed over to another instance is waited for there, on this same stored request.
    const onAbort = () =>
      signal.reason instanceof RunHandedOver
        ? finish({ ...record, status: 'cancelled', decidedAt: now(), reason: signal.reason.message }, true)
        : waiter.settle('cancelled');
    const timer = setTimeout(() => waiter.settle('expired'), timeoutMs);
    const poll = this.#pollStore(record, (stored) => waiter.adopt(stored));
    const finish = (final: ApprovalRecord, alreadyStored: boolean) => {
      if (waiter.final) return;
      waiter.final = final;
      clearTimeout(timer);
      clearInterval(poll);
      signal.removeEventListener('abort', onAbort);
      resolve({ final, stored: alreadyStored });
    };
    const waiter: Waiter = {
      record,
      stored,
      settle(status, reason, answer, by) {
        finish(
          {
            ...record,
            status,
            decidedAt: now(),
            ...(by ? { decidedBy: by } : {}),
            ...(reason ? { reason } : {}),
            ...(answer && status === 'approved' ? { answer } : {}),
          },
          false,
        );
      },
      adopt: (final) => finish(final, true),
      written: Promise.resolve(record),
    };
    // Registered before it is stored: a decision arriving meanwhile finds the waiter.
    this.#waiting.set(id, waiter);
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    waiter.written = (async () => {
      try {
        // An adopted request is stored already: writing it again could undo a decision made meanwhile.
        markStored(adopt ? true : await this.#write(record));
        options.onOpen?.(record);
        const outcome = await decided;
        return outcome.stored ? outcome.final : await this.#settleStored(record, outcome.final);
      } finally {
        markStored(false); // a no-op once the write ended
        waiter.settle('cancelled'); // a no-op once settled; stops the timers if onOpen threw
        if (this.#waiting.get(id) === waiter) this.#waiting.delete(id);
      }
    })();
    return waiter.written;
  }

  /**
   * Decides a pending approval and resolves with its final record. Throws `APPROVAL_NOT_FOUND`,
   * `APPROVAL_DECIDED` (already decided, expired or cancelled), or `RUN_NOT_RUNNING` when no run of
   * this process waits for it: the decision is then recorded (a process still running the run
   * picks it up), its record in `details.approval`. The decision is one compare-and-set on the
   * stored request: of two decisions made at once, on one instance or several, exactly one is
   * recorded and resolves; the other throws `APPROVAL_DECIDED`.
   */
  async decide(
    runId: string,
    callId: string,
    decision: ApprovalDecision,
    only?: { agent?: string; principal?: (owner: string | undefined) => boolean },
  ): Promise<ApprovalRecord> {
    const status = decision.approved ? 'approved' : 'denied';
    const id = key(runId, callId);
    // `only` narrows what this caller may decide: one agent's approvals, or those of the principals
    // it may see, checked on the very record decided (not on an earlier read).
    const mine = (record: ApprovalRecord) =>
      (!only?.agent || record.agent === only.agent) && (!only?.principal || only.principal(record.principal));
    let waiter = this.#waiting.get(id);
    if (waiter && !mine(waiter.record)) waiter = undefined;
    if (waiter?.final) throw alreadyDecided(waiter.final);
    // The store could not keep the request: it is decided in this process alone.
    if (waiter && !(await waiter.stored)) {
      if (waiter.final) throw alreadyDecided(waiter.final);
      const answer = decision.approved ? checkAnswer(waiter.record, decision.content) : undefined;
      waiter.settle(status, decision.reason, answer, decision.by);
      return waiter.written;
    }
    const stored = waiter?.record ?? (await this.get(runId, callId));
    if (!stored || !mine(stored)) {
      throw new HubosError('APPROVAL_NOT_FOUND', `run "${runId}" has no approval request "${callId}"`, {
        details: { runId, callId },
      });
    }
    if (stored.status !== 'pending') throw alreadyDecided(stored);
    const answer = decision.approved ? checkAnswer(stored, decision.content) : undefined;
    // The asking run has given up on it by now: say so rather than record a decision nobody reads.
    const expired = Date.parse(stored.expiresAt) <= Date.now();
    const recorded: ApprovalRecord = {
      ...stored,
      status: expired ? 'expired' : status,
      decidedAt: now(),
      ...(decision.by && !expired ? { decidedBy: decision.by } : {}),
      ...(decision.reason && !expired ? { reason: decision.reason } : {}),
      ...(answer && !expired ? { answer } : {}),
    };
    // Atomic: of two decisions at once (here or on another instance), one wins; the other hears it
    // was decided. Whether this one won is the answer: the record is not read back to decide it.
    const won = await this.table()
      .then((table) => table.compareAndSet(stored, recorded))
      .catch((error: unknown) => {
        // A run of this process still hears the decision while the store is failing.
        if (!waiter) throw error;
        this.#options.onError?.(`could not store approval ${callId}: ${errorMessage(error)}`);
        return undefined;
      });
    if (!won) {
      const winner =
        won === false
          ? await this.table()
              .then((table) => table.get(runId, callId))
              .catch(() => undefined)
          : undefined;
      const decidedElsewhere = winner?.requestedAt === stored.requestedAt && winner.status !== 'pending';
      // The run waiting here follows the winner now rather than at its next poll.
      if (decidedElsewhere) waiter?.adopt(winner);
      else if (waiter && !waiter.final) {
        // The store holds something other than this request (rewritten, or unreadable): decided here.
        waiter.settle(recorded.status, recorded.reason, recorded.answer, recorded.decidedBy);
        return waiter.written;
      }
      throw alreadyDecided(decidedElsewhere ? winner : (waiter?.final ?? recorded));
    }
    if (waiter) {
      // A timeout or cancellation that settled it meanwhile finds this record stored and yields to it.
      waiter.adopt(recorded);
      if (expired) throw alreadyDecided(recorded);
      return recorded;
    }
    if (expired) throw alreadyDecided(recorded);
    const bus = this.#options.bus;
    if (bus) {
      await bus
        .publish(DECISIONS_CHANNEL, recorded as unknown as StoreValue)
        .catch((error: unknown) =>
          this.#options.onError?.(`could not announce approval ${callId}: ${errorMessage(error)}`),
        );
      // On a shared bus the instance running the run hears it now; the record is the answer.
      if (bus.shared) return recorded;
    }
    throw new HubosError(
      'RUN_NOT_RUNNING',
      `run "${runId}" is no longer running in this process; the decision is recorded (a process still running it applies it)`,
      { details: { runId, callId, approval: recorded } },
    );
  }

  /** One approval, pending or decided, as stored. */
  async get(runId: string, callId: string): Promise<ApprovalRecord | undefined> {
    const live = this.#waiting.get(key(runId, callId));
    if (live) return live.final ?? live.record;
    return (await this.table()).get(runId, callId);
  }

  /**
   * A run's approvals, oldest first: pending only unless `all`. Without `runId`, every run's: that
   * reads them all, so a server lists a page at a time with `page` instead.
   */
  async list(runId?: string, options: { all?: boolean } = {}): Promise<ApprovalRecord[]> {
    const all = options.all === true;
    if (runId !== undefined) return this.#asTheyStand(await (await this.table()).ofRun(runId, all), all);
    const records: ApprovalRecord[] = [];
    for (let after: ApprovalCursor | undefined; ; ) {
      const page = await (await this.table()).list({ all, limit: 500, after });
      records.push(...this.#asTheyStand(page, all));
      const last = page.at(-1);
      if (!last || page.length < 500) return records;
      after = cursorOf(last);
    }
  }

  /**
   * A page of approvals, oldest request first (of one owner, pending only unless `all`): reads
   * only that page, from the pending approvals' own index when only pending ones are asked.
   * `next` is where the next page starts, when this one was full.
   */
  async page(query: ApprovalQuery): Promise<{ approvals: ApprovalRecord[]; next?: ApprovalCursor }> {
    const all = query.all === true;
    const read = await (await this.table()).list({ ...query, all });
    const last = read.length === query.limit ? read.at(-1) : undefined;
    return { approvals: this.#asTheyStand(read, all), ...(last ? { next: cursorOf(last) } : {}) };
  }

  // What this process decided but has not stored yet stands over the stored record.
  #asTheyStand(records: ApprovalRecord[], all: boolean): ApprovalRecord[] {
    const current = records.map(
      (record) => this.#waiting.get(key(record.runId, record.callId))?.final ?? record,
    );
    return all ? current : current.filter((record) => record.status === 'pending');
  }

  /**
   * Waits until the outcomes already reached are stored (the kernel calls it before closing the store).
   * @internal
   */
  async flush(): Promise<void> {
    const settled = [...this.#waiting.values()].filter((waiter) => waiter.final);
    await Promise.allSettled(settled.map((waiter) => waiter.written));
  }

  /**
   * Marks a run's pending approvals `cancelled` (with `reason`) when nobody waits for them any
   * more: the run was interrupted with its instance. Resolves with how many it marked.
   */
  async abandon(runId: string, reason: string): Promise<number> {
    let marked = 0;
    for (const record of await this.list(runId)) {
      if (this.isWaiting(record.runId, record.callId)) continue;
      const cancelled: ApprovalRecord = { ...record, status: 'cancelled', decidedAt: now(), reason };
      const won = await (await this.table()).compareAndSet(record, cancelled);
      if (won) marked++;
    }
    return marked;
  }

  /** Stops listening for decisions made elsewhere. @internal */
  async close(): Promise<void> {
    const unsubscribe = await this.#listening;
    this.#listening = undefined;
    await unsubscribe?.().catch(() => undefined);
  }

  /** True while a run of this process waits for this decision. */
  isWaiting(runId: string, callId: string): boolean {
    const waiter = this.#waiting.get(key(runId, callId));
    return waiter !== undefined && waiter.final === undefined;
  }

  // Decisions announced on the bus settle the waiter they are for, when it waits in this process.
  #listen(): void {
    const bus = this.#options.bus;
    if (!bus || this.#listening) return;
    this.#listening = bus
      .subscribe(DECISIONS_CHANNEL, (message) => {
        const decided = message as unknown as ApprovalRecord;
        const waiter = this.#waiting.get(key(decided.runId, decided.callId));
        // Announced once stored: the run takes the record as it stands.
        if (waiter && waiter.record.requestedAt === decided.requestedAt) waiter.adopt(decided);
      })
      .catch((error: unknown) => {
        this.#options.onError?.(`cannot hear approvals decided elsewhere: ${errorMessage(error)}`);
        return undefined;
      });
  }

  /**
   * Stores the outcome this process reached, unless another instance stored one first: then that
   * one stands (and is what the run acts on), so both sides agree on a single decision.
   */
  async #settleStored(pending: ApprovalRecord, final: ApprovalRecord): Promise<ApprovalRecord> {
    try {
      const table = await this.table();
      if (await table.compareAndSet(pending, final)) return final;
      const stored = await table.get(pending.runId, pending.callId);
      if (stored?.requestedAt === pending.requestedAt && stored.status !== 'pending') return stored;
      await this.#write(final);
    } catch (error) {
      this.#options.onError?.(`could not store approval ${pending.callId}: ${errorMessage(error)}`);
    }
    return final;
  }

  // Another process sharing the store may record the decision (see decide()): look for it now and then.
  #pollStore(record: ApprovalRecord, found: (stored: ApprovalRecord) => void): NodeJS.Timeout | undefined {
    const every = this.#options.pollMs ?? 1_000;
    if (every <= 0) return undefined;
    const timer = setInterval(async () => {
      const stored = await this.table()
        .then((table) => table.get(record.runId, record.callId))
        .catch(() => undefined);
      if (stored?.requestedAt === record.requestedAt && stored.status !== 'pending') found(stored);
    }, every);
    timer.unref();
    return timer;
  }

  /** Stores a record; false when the store failed (told to `onError`). */
  async #write(record: ApprovalRecord): Promise<boolean> {
    try {
      await (await this.table()).put(record);
      return true;
    } catch (error) {
      this.#options.onError?.(`could not store approval ${record.callId}: ${errorMessage(error)}`);
      return false;
    }
  }
}

/** Where a page that ended with `record` goes on from. */
function cursorOf(record: ApprovalRecord): ApprovalCursor {
  return { requestedAt: Date.parse(record.requestedAt), runId: record.runId, callId: record.callId };
}

const answerSchemas = new SchemaCompilers();

/**
 * The answer to a request's question: its fields with the schema's defaults filled in, checked
 * against the schema; undefined for a plain approval. Throws APPROVAL_ANSWER_INVALID saying what is wrong.
 */
function checkAnswer(record: ApprovalRecord, content: unknown): Record<string, unknown> | undefined {
  if (!record.question) return undefined;
  const { message, schema } = record.question;
  const isObject = typeof content === 'object' && content !== null && !Array.isArray(content);
  const answer = (isObject ? structuredClone(content) : (content ?? {})) as Record<string, unknown>;
  const ajv = answerSchemas.for(schema);
  let problems: string | undefined;
  try {
    const validate = ajv.compile(schema);
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer))
      problems = 'the answer must be an object of the requested fields';
    else if (!validate(answer)) problems = describeErrors(validate.errors, answer).join('; ');
  } catch (error) {
    throw new HubosError(
      'APPROVAL_ANSWER_INVALID',
      `the question's schema does not compile: ${errorMessage(error)}`,
    );
  } finally {
    // Records come back from the store as new objects: nothing is kept per schema.
    ajv.removeSchema(schema);
  }
  if (problems !== undefined) {
    throw new HubosError(
      'APPROVAL_ANSWER_INVALID',
      `the answer to "${message.slice(0, 200)}" does not fit what was asked: ${problems}. Send \`content\` with the requested fields.`,
      { details: { runId: record.runId, callId: record.callId, schema } },
    );
  }
  return answer;
}

function alreadyDecided(record: ApprovalRecord): HubosError {
  return new HubosError(
    'APPROVAL_DECIDED',
    `approval "${record.callId}" of run "${record.runId}" is already ${record.status}`,
    { details: { runId: record.runId, callId: record.callId, approval: record } },
  );
}
