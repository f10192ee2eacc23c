import {
  type Agent,
  collection,
  HubosError,
  MemoryStore,
  type Store,
  streamEvents,
} from '../../core/index.ts';
import type { Cosmos } from '../cosmos/index.ts';
import { STARS_ERROR_CODES } from './errors.ts';
import { runTeam } from './team-run.ts';
import {
  RoleLeader,
  RoleWorker,
  type StarsEvent,
  type StarsMember,
  type StarsMessage,
  type StarsOptions,
  type StarsRole,
  type StarsRunResult,
} from './types.ts';

/** The store namespace histories live in, one key per team. */
export const STARS_NAMESPACE = 'stars';
export const DEFAULT_HISTORY_LIMIT = 1000;
export const DEFAULT_MAX_TURNS = 20;

/** Why a Stars call failed, in `error.details.stars` (the routes answer with it as the code). */
/** What the store keeps of a team: its history (of another version, perhaps without messages). */
interface SavedHistory {
  messages?: StarsMessage[];
}

interface Member {
  role: StarsRole;
  inbox: StarsMessage[];
}

/** How a team run starts. */
export interface StarsRunOptions {
  /** Cancels the run. */
  signal?: AbortSignal;
  /** Who the run is for (`RunOptions.principal`): every member's run is theirs, approvals included. */
  principal?: string;
}

/**
 * A team of Cosmos agents: one leader, workers, messages between them (point to point or
 * broadcast, each member with an inbox, the history kept in the store) and collaborative runs
 * where the leader delegates to workers that run concurrently.
 */
export class Stars {
  readonly name: string;
  readonly cosmos: Cosmos;
  readonly historyLimit: number;
  readonly maxTurns: number;
  readonly store: Store;
  readonly #members = new Map<string, Member>();
  readonly #history: StarsMessage[] = [];
  #seq = 0;
  #flushing: Promise<void> | undefined;
  #pending = false;

  constructor(cosmos: Cosmos, name: string, options: StarsOptions = {}) {
    const { historyLimit = DEFAULT_HISTORY_LIMIT, maxTurns = DEFAULT_MAX_TURNS } = options;
    if (typeof name !== 'string' || name === '')
      throw new HubosError('CONFIG_INVALID', 'stars: a team needs a non-empty name');
    for (const [key, value] of Object.entries({ historyLimit, maxTurns })) {
      if (!Number.isInteger(value) || value < 1)
        throw new HubosError(
          'CONFIG_INVALID',
          `stars "${name}": ${key} must be a positive integer (got ${value})`,
        );
    }
    this.cosmos = cosmos;
    this.name = name;
    this.historyLimit = historyLimit;
    this.maxTurns = maxTurns;
    this.store = options.store ?? new MemoryStore();
  }

  /** Adds a Cosmos agent to the team. Fails if it is not in Cosmos, already a member, or a second leader. */
  join(agentId: string, role: StarsRole): StarsMember {
    if (role !== RoleLeader && role !== RoleWorker)
      throw STARS_ERROR_CODES.create(
        'STARS_INVALID',
        `stars "${this.name}": role must be "leader" or "worker" (got ${JSON.stringify(role)})`,
      );
    if (!this.cosmos.has(agentId))
      throw STARS_ERROR_CODES.create(
        'STARS_AGENT_NOT_FOUND',
        `stars "${this.name}": no agent "${agentId}" in Cosmos: create it there first`,
      );
    if (this.#members.has(agentId))
      throw STARS_ERROR_CODES.create(
        'STARS_MEMBER_EXISTS',
        `stars "${this.name}": "${agentId}" is already a member`,
      );
    const leader = this.leader;
    if (role === RoleLeader && leader)
      throw STARS_ERROR_CODES.create(
        'STARS_LEADER_EXISTS',
        `stars "${this.name}": "${leader}" is already the leader (a team has one)`,
      );
    this.#members.set(agentId, { role, inbox: [] });
    return this.#describe(agentId, role);
  }

  /** Removes a member (its inbox goes with it); false if it was not one. */
  leave(agentId: string): boolean {
    return this.#members.delete(agentId);
  }

  members(): StarsMember[] {
    return [...this.#members].map(([id, member]) => this.#describe(id, member.role));
  }

  /** The leader's id, if the team has one. */
  get leader(): string | undefined {
    for (const [id, member] of this.#members) if (member.role === RoleLeader) return id;
    return undefined;
  }

  role(agentId: string): StarsRole {
    return this.#member(agentId).role;
  }

  /** The member's agent in Cosmos (it may have been deleted there since it joined). */
  agent(agentId: string): Agent {
    this.#member(agentId);
    const agent = this.cosmos.get(agentId);
    if (!agent)
      throw STARS_ERROR_CODES.create(
        'STARS_AGENT_NOT_FOUND',
        `stars "${this.name}": member "${agentId}" is no longer in Cosmos`,
      );
    return agent;
  }

  /**
   * Point to point: both must be members. `deliver: false` records it in the history only (a team
   * run delivers its members' messages within the run, never to the inboxes other runs take).
   */
  send(
    from: string,
    to: string,
    content: string,
    kind: StarsMessage['kind'] = 'message',
    options: { deliver?: boolean } = {},
  ): StarsMessage {
    this.#member(from);
    const recipient = this.#member(to);
    const message = this.#record(from, to, content, kind);
    if (kind === 'message' && options.deliver !== false) this.#deliver(recipient, message);
    return message;
  }

  /**
   * To every member but the sender; resolves with the message (delivered to `members().length - 1`
   * inboxes, or recorded in the history only with `deliver: false`).
   */
  broadcast(from: string, content: string, options: { deliver?: boolean } = {}): StarsMessage {
    this.#member(from);
    const message = this.#record(from, '*', content, 'message');
    if (options.deliver !== false)
      for (const [id, member] of this.#members) if (id !== from) this.#deliver(member, message);
    return message;
  }

  /** What arrived for a member and was not yet taken, oldest first. */
  inbox(agentId: string): StarsMessage[] {
    return [...this.#member(agentId).inbox];
  }

  /** Takes (empties) a member's inbox. */
  takeInbox(agentId: string): StarsMessage[] {
    const member = this.#member(agentId);
    return member.inbox.splice(0);
  }

  /** The messages, in order, at most `historyLimit` (the newest). */
  history(): StarsMessage[] {
    return [...this.#history];
  }

  /** Loads the history the store keeps for this team (called at startup by the plugin). */
  async load(): Promise<void> {
    const saved = await this.#histories().get(this.name);
    const messages = (saved?.messages ?? []).slice(-this.historyLimit);
    this.#history.splice(0, this.#history.length, ...messages);
    this.#seq = messages.at(-1)?.seq ?? 0;
  }

  /** Resolves once the history is written to the store (writes are batched per tick). */
  async flush(): Promise<void> {
    await this.#flushing;
  }

  /** A collaborative run: the leader gets the task and the roster, delegates, and answers. */
  run(task: string, options: StarsRunOptions = {}): Promise<StarsRunResult> {
    return runTeam(this, task, options, () => undefined);
  }

  /** The run's events as they happen, each tagged with its member; stopping early cancels the run. */
  stream(task: string, options: StarsRunOptions = {}): AsyncGenerator<StarsEvent, void, undefined> {
    return streamEvents<StarsEvent>(options.signal, async (signal, push) => {
      const result = await runTeam(this, task, { ...options, signal }, push);
      push({ type: 'stars-finish', member: this.leader ?? '', role: RoleLeader, result });
    });
  }

  #histories() {
    return collection<SavedHistory>(this.store, STARS_NAMESPACE);
  }

  #member(agentId: string): Member {
    const member = this.#members.get(agentId);
    if (!member)
      throw STARS_ERROR_CODES.create(
        'STARS_NOT_MEMBER',
        `stars "${this.name}": "${agentId}" is not a member (members: ${[...this.#members.keys()].join(', ') || 'none'})`,
      );
    return member;
  }

  #describe(agentId: string, role: StarsRole): StarsMember {
    return { agentId, role, description: this.cosmos.get(agentId)?.spec.description ?? '' };
  }

  #record(from: string, to: string, content: string, kind: StarsMessage['kind']): StarsMessage {
    if (typeof content !== 'string' || content === '')
      throw STARS_ERROR_CODES.create(
        'STARS_INVALID',
        `stars "${this.name}": a message needs non-empty content`,
      );
    const message: StarsMessage = { seq: ++this.#seq, from, to, content, kind, at: new Date().toISOString() };
    this.#history.push(message);
    if (this.#history.length > this.historyLimit)
      this.#history.splice(0, this.#history.length - this.historyLimit);
    this.#schedule();
    return message;
  }

  #deliver(member: Member, message: StarsMessage): void {
    member.inbox.push(message);
    if (member.inbox.length > this.historyLimit)
      member.inbox.splice(0, member.inbox.length - this.historyLimit);
  }

  /** One store write per tick, however many messages it saw. */
  #schedule(): void {
    if (this.#pending) return;
    this.#pending = true;
    this.#flushing = (async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.#pending = false;
      const messages = [...this.#history];
      await this.#histories().set(this.name, { messages });
    })().catch(() => undefined);
  }
}
