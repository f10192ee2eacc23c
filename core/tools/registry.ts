import { didYouMean } from '../closest-name.ts';
import { errorMessage, HubosError } from '../errors.ts';
import { SchemaCompilers } from '../json-schema.ts';
import type { Validation } from '../standard-schema.ts';
import type { Tool, ToolSpec } from './tool.ts';
import { type CheckedTool, checkTool } from './tool-check.ts';

export type InputCheck = { ok: true; input: Record<string, unknown> } | { ok: false; message: string };

/**
 * What checking a structured result found: the data to pass on (a Standard Schema's output, with
 * its defaults and transforms applied), or what is wrong, in words.
 */
export type OutputCheck = { ok: true; output: unknown } | { ok: false; message: string };

type RegisterListener = (tool: Tool) => void;

/** What one registry change did: the tools it added and the tools it removed. */
export interface RegistryChange {
  added: readonly Tool[];
  removed: readonly Tool[];
}

type ChangeListener = (change: RegistryChange) => void;

/** Tools named `<prefix>...` that `owner` (a source not up yet) will register later. */
export interface ToolReservation {
  prefix: string;
  owner: string;
}

/** The tools an app knows, by name, in registration order; each schema compiled once. */
export class Registry {
  readonly #compilers = new SchemaCompilers();
  readonly #tools = new Map<string, CheckedTool>();
  readonly #listeners = new Set<RegisterListener>();
  readonly #changeListeners = new Set<ChangeListener>();
  readonly #reservations = new Set<ToolReservation>();

  /**
   * Adds a tool. Throws TOOL_INVALID for a malformed tool, TOOL_DUPLICATE for a taken name.
   * A tool written with Standard Schemas is kept with the JSON Schema derived from them (see
   * `defineTool`): `get` and `list` give that tool, not the object passed in.
   */
  register(tool: ToolSpec): void {
    this.registerBatch([tool]);
  }

  /** Adds several tools, all or nothing: one bad tool leaves the registry unchanged. */
  registerBatch(tools: readonly ToolSpec[]): void {
    const checked: CheckedTool[] = [];
    try {
      for (const tool of tools) checked.push(checkTool(tool, this.#compilers));
      const seen = new Set<string>();
      for (const { tool } of checked) {
        if (this.#tools.has(tool.name) || seen.has(tool.name)) {
          throw new HubosError(
            'TOOL_DUPLICATE',
            `tool "${tool.name}" is already registered: tool names must be unique (prefix yours, e.g. "myplugin_${tool.name}")`,
            { details: { tool: tool.name } },
          );
        }
        seen.add(tool.name);
      }
    } catch (error) {
      // Nothing in ajv either: a schema with an $id left behind would make the corrected retry fail.
      for (const { tool } of checked) this.#forgetSchema(tool);
      throw error;
    }
    for (const entry of checked) this.#tools.set(entry.tool.name, entry);
    for (const { tool } of checked) for (const listener of this.#listeners) listener(tool);
    if (checked.length > 0) this.#changed({ added: checked.map((entry) => entry.tool), removed: [] });
  }

  /** The tool named `name`; throws TOOL_NOT_FOUND listing the known names. */
  get(name: string): Tool {
    const entry = this.#tools.get(name);
    if (!entry) throw this.#notFound(name);
    return entry.tool;
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** Every tool, in registration order. */
  list(): Tool[] {
    return [...this.#tools.values()].map((entry) => entry.tool);
  }

  /** Removes a tool (e.g. when its source goes away); false if it was not there. */
  unregister(name: string): boolean {
    const entry = this.#tools.get(name);
    if (!entry) return false;
    this.#tools.delete(name);
    this.#forgetSchema(entry.tool);
    this.#changed({ added: [], removed: [entry.tool] });
    return true;
  }

  /** Drops a tool's schemas from ajv (and their $id) unless a registered tool still uses them. */
  #forgetSchema(tool: Tool): void {
    for (const schema of [tool.inputSchema, tool.outputSchema]) {
      if (typeof schema !== 'object' || schema === null) continue;
      const used = [...this.#tools.values()].some(
        (entry) => entry.tool.inputSchema === schema || entry.tool.outputSchema === schema,
      );
      if (!used) this.#compilers.for(schema).removeSchema(schema);
    }
  }

  /**
   * Checks a structured result against the tool's `outputSchema`: undefined when it conforms (or
   * the tool declares none), else what is wrong, in words. At once: a Standard Schema that answers
   * only asynchronously is checked against its derived JSON Schema (`validateOutput` awaits it).
   */
  checkOutput(name: string, structured: unknown): string | undefined {
    const check = this.#tools.get(name)?.output;
    if (!check) return undefined;
    const result = check.now(structured);
    return result.ok ? undefined : this.#outputProblem(name, result);
  }

  /**
   * The full check of a structured result, what `executeTool` does: a Standard Schema's own answer
   * (a Promise only where it answers asynchronously: await it), and its output value (defaults and
   * transforms applied) as the data to pass on.
   */
  validateOutput(name: string, structured: unknown): OutputCheck | Promise<OutputCheck> {
    const check = this.#tools.get(name)?.output;
    if (!check) return { ok: true, output: structured };
    return then(check.full(structured), (result) =>
      result.ok
        ? { ok: true, output: result.value }
        : { ok: false, message: this.#outputProblem(name, result) },
    );
  }

  #outputProblem(name: string, result: Validation & { ok: false }): string {
    return `the result of tool "${name}" does not match its outputSchema: ${result.problems.join('; ')}`;
  }

  /**
   * Validates input against the tool's schema without touching the caller's object.
   * On success the input has the schema's defaults applied; on failure the message says
   * which field is wrong, what was expected and what was given, in words a model can act on.
   * At once: a Standard Schema that answers only asynchronously is checked against the JSON Schema
   * derived from it, a first look (`validateInput`, what `executeTool` does, waits for its answer).
   */
  checkInput(name: string, input: unknown): InputCheck {
    const entry = this.#tools.get(name);
    if (!entry) return { ok: false, message: this.#notFound(name).message };
    const copy = this.#copyInput(name, input);
    if (!copy.ok) return copy;
    return this.#inputCheck(name, entry.input.now(copy.input));
  }

  /**
   * The full input check, what `executeTool` does before a handler runs: as `checkInput`, with a
   * Standard Schema's own answer (its defaults, transforms and refinements applied). A Promise only
   * where the schema answers asynchronously: await it.
   */
  validateInput(name: string, input: unknown): InputCheck | Promise<InputCheck> {
    const entry = this.#tools.get(name);
    if (!entry) return { ok: false, message: this.#notFound(name).message };
    const copy = this.#copyInput(name, input);
    if (!copy.ok) return copy;
    return then(entry.input.full(copy.input), (result) => this.#inputCheck(name, result));
  }

  /** A copy of the input to validate (schema defaults are applied to it), or why there is none. */
  #copyInput(name: string, input: unknown): { ok: true; input: unknown } | { ok: false; message: string } {
    try {
      return { ok: true, input: input === undefined ? {} : structuredClone(input) };
    } catch (error) {
      return {
        ok: false,
        message: `invalid input for tool "${name}": the input must be JSON data (${errorMessage(error)})`,
      };
    }
  }

  #inputCheck(name: string, result: Validation): InputCheck {
    if (result.ok) return { ok: true, input: result.value as Record<string, unknown> };
    return {
      ok: false,
      message: `invalid input for tool "${name}": ${result.problems.join('; ')}. Fix the arguments and call "${name}" again.`,
    };
  }

  /** Calls `listener` for every tool registered from now on; returns the unsubscribe function. */
  onRegister(listener: (tool: Tool) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Calls `listener` after every change: a register/registerBatch (what it added) or an unregister
   * (what it removed). Listeners run synchronously and must not throw. Returns the unsubscribe function.
   */
  onChange(listener: (change: RegistryChange) => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  /**
   * Says that tools named `<prefix>...` will come from `owner`, which is not up yet (an MCP server
   * still starting, say): an agent naming such a tool is accepted before it exists. Returns the
   * release function (call it once the owner is up, or gone for good).
   */
  reserve(prefix: string, owner: string): () => void {
    if (typeof prefix !== 'string' || prefix === '') {
      throw new HubosError('TOOL_INVALID', `reserve(): "${owner}" must reserve a non-empty tool name prefix`);
    }
    const reservation = { prefix, owner };
    this.#reservations.add(reservation);
    return () => {
      this.#reservations.delete(reservation);
    };
  }

  /** The prefixes reserved by sources that are not up yet. */
  reservations(): ToolReservation[] {
    return [...this.#reservations].map((reservation) => ({ ...reservation }));
  }

  #changed(change: RegistryChange): void {
    for (const listener of this.#changeListeners) listener(change);
  }

  #notFound(name: string): HubosError {
    const known = [...this.#tools.keys()];
    const list = known.length > 0 ? `known tools: ${known.join(', ')}` : 'no tools are registered';
    return new HubosError('TOOL_NOT_FOUND', `no tool named "${name}"${didYouMean(name, known)} (${list})`, {
      details: { tool: name },
    });
  }
}

/** `f(value)`, at once for a value, once it settles for a Promise: synchronous schemas stay synchronous. */
function then<T, R>(value: T | Promise<T>, f: (value: T) => R): R | Promise<R> {
  return value instanceof Promise ? value.then(f) : f(value);
}
