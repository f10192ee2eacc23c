/**
 * The tasks this instance is following right now: a turn whose run it translates, an answer it
 * is applying. Reading such a task never settles it from its run's record (the follower says how
 * it ends, answer and history included): a run that ends the moment an answer lets it go on must
 * not turn the task final before that answer's turn has even started.
 */
export class FollowedTasks {
  readonly #holds = new Map<string, number>();

  /** Marks the task followed until the returned release is called (once; more calls do nothing). */
  hold(taskId: string): () => void {
    this.#holds.set(taskId, (this.#holds.get(taskId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#holds.get(taskId) ?? 1) - 1;
      if (left > 0) this.#holds.set(taskId, left);
      else this.#holds.delete(taskId);
    };
  }

  has(taskId: string): boolean {
    return this.#holds.has(taskId);
  }
}
