import { HubosError } from '../errors.ts';
import type { Prompt } from './prompt.ts';

/** The prompts an app offers (MCP serves them), registered by plugins as tools are. */
export class PromptRegistry {
  readonly #prompts = new Map<string, Prompt>();
  readonly #changed = new Set<() => void>();

  /** Adds a prompt. Throws PROMPT_INVALID for a malformed one, PROMPT_DUPLICATE for a taken name. */
  register(prompt: Prompt): void {
    if (typeof prompt?.name !== 'string' || prompt.name === '')
      throw new HubosError('PROMPT_INVALID', 'a prompt needs a non-empty name');
    if (typeof prompt.get !== 'function')
      throw new HubosError('PROMPT_INVALID', `prompt "${prompt.name}" needs a get() function`);
    if (this.#prompts.has(prompt.name))
      throw new HubosError('PROMPT_DUPLICATE', `a prompt "${prompt.name}" is already registered`);
    this.#prompts.set(prompt.name, prompt);
    this.#emitChanged();
  }

  unregister(name: string): boolean {
    const removed = this.#prompts.delete(name);
    if (removed) this.#emitChanged();
    return removed;
  }

  get(name: string): Prompt | undefined {
    return this.#prompts.get(name);
  }

  list(): Prompt[] {
    return [...this.#prompts.values()];
  }

  /** Calls `listener` when prompts are added or removed; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.#changed.add(listener);
    return () => this.#changed.delete(listener);
  }

  #emitChanged(): void {
    for (const listener of this.#changed) listener();
  }
}
