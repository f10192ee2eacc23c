import type { AgentEvent } from '../agent/events.ts';
import { LoopSteps } from './loop-steps.ts';
import type { RunStep, StepTrack } from './run-table.ts';

/**
 * Turns a run's events into its steps, numbered in one sequence: its own loop's, and those of the
 * runs it started (a sub-agent task's, a Stars member's), each on its `track`. Steps of a child
 * that finish while the run's own step is going are numbered with that step (after its model
 * call); others (a team run has no loop of its own) as they finish.
 */
export class StepRecorder {
  readonly #runId: string;
  readonly #own: LoopSteps;
  /** The loops of child runs going on, by their run id. */
  readonly #children = new Map<string, LoopSteps>();
  #seq = 0;
  #inStep = false;
  /** Child steps finished during the run's own step: numbered with it. */
  #held: RunStep[] = [];

  constructor(runId: string) {
    this.#runId = runId;
    this.#own = new LoopSteps(runId);
  }

  /**
   * Numbers the steps from here on after `seq`: a run resumed on another instance goes on after
   * the steps its dead instance kept (a step at a number already taken would not be written).
   */
  continueAfter(seq: number): void {
    this.#seq = Math.max(this.#seq, seq);
  }

  /** The steps `event` finishes, in order (none for most events): the run's own, or a Stars member's. */
  see(event: AgentEvent): RunStep[] {
    if (event.runId === this.#runId) return this.#seeOwn(event);
    // A Stars team run's members: their events come with who they are.
    const { member, role } = event as { member?: unknown; role?: unknown };
    // A team's own events (a delegation, a message) belong to no member's run.
    if (typeof member !== 'string' || typeof event.runId !== 'string') return [];
    return this.seeChild(event, { runId: event.runId, kind: 'member', label: `${member} (${String(role)})` });
  }

  /** The steps an event of a child run finishes; `track` says whose (read at its first event). */
  seeChild(event: AgentEvent, track: StepTrack): RunStep[] {
    let loop = this.#children.get(event.runId);
    if (!loop) {
      loop = new LoopSteps(this.#runId, track);
      this.#children.set(event.runId, loop);
    }
    const steps = loop.see(event);
    if (event.type === 'run-finish' || event.type === 'run-error') this.#children.delete(event.runId);
    if (steps.length === 0) return steps;
    if (this.#inStep) {
      this.#held.push(...steps);
      return [];
    }
    return this.#number(steps);
  }

  #seeOwn(event: AgentEvent): RunStep[] {
    if (event.type === 'step-start') this.#inStep = true;
    const steps = this.#own.see(event);
    if (event.type === 'step-finish') {
      this.#inStep = false;
      if (this.#held.length === 0) return this.#number(steps);
      const held = this.#held.splice(0);
      // After the model call that asked for them (and any summary before it), before the tool calls they ran within.
      const after = steps.findIndex((step) => step.kind === 'model') + 1;
      return this.#number([...steps.slice(0, after), ...held, ...steps.slice(after)]);
    }
    // A run that ends mid-step (failed, cancelled) still records what it and its children finished.
    if (event.type === 'run-finish' || event.type === 'run-error') {
      const ended = [...steps, ...this.#held.splice(0)];
      return ended.length > 0 ? this.#number(ended) : ended;
    }
    return steps;
  }

  #number(steps: RunStep[]): RunStep[] {
    for (const step of steps) step.seq = ++this.#seq;
    return steps;
  }
}
