import { HubosError } from './errors.ts';
import type { HubosServices } from './index.ts';

/** A service's name: one of `HubosServices`, or any other string (typed `unknown`). */
export type ServiceName = keyof HubosServices | (string & {});
export type ServiceOf<N extends string> = N extends keyof HubosServices ? HubosServices[N] : unknown;

interface Provided {
  value: unknown;
  plugin: string | undefined;
}

/**
 * The kernel's services (Fastify's decorators, by another name): each provided once, by one plugin;
 * asking for one that no plugin provides fails with an error that says which plugin to add.
 */
export class Services {
  readonly #provided = new Map<string, Provided>();
  /** Service name → the plugin that declared it in `provides`. */
  readonly #declared = new Map<string, string>();

  /** Records which plugin promises which service (`plugin.provides`); two promising one name is an error. */
  declare(plugin: string, names: readonly string[]): void {
    for (const name of names) {
      const other = this.#declared.get(name);
      if (other !== undefined && other !== plugin)
        throw new HubosError(
          'SERVICE_DUPLICATE',
          `plugins "${other}" and "${plugin}" both provide the "${name}" service: keep one of them`,
          { details: { plugin, service: name } },
        );
      this.#declared.set(name, plugin);
    }
  }

  provide(name: string, value: unknown, plugin?: string): void {
    const promised = this.#declared.get(name);
    if (plugin !== undefined && promised !== undefined && promised !== plugin)
      throw new HubosError(
        'SERVICE_DUPLICATE',
        `plugin "${plugin}" cannot provide the "${name}" service: plugin "${promised}" declares that it provides it`,
        { details: { service: name, plugin } },
      );
    const other = this.#provided.get(name);
    if (other)
      throw new HubosError(
        'SERVICE_DUPLICATE',
        `the "${name}" service is already provided${other.plugin ? ` by plugin "${other.plugin}"` : ''}${plugin ? `: plugin "${plugin}" cannot provide it again` : ''}`,
        { details: { service: name, ...(plugin ? { plugin } : {}) } },
      );
    this.#provided.set(name, { value, plugin });
  }

  has(name: string): boolean {
    return this.#provided.has(name);
  }

  /** The service; throws naming what to add when no plugin provides it, or when it is not provided yet. */
  get(name: string, asker?: string): unknown {
    const provided = this.#provided.get(name);
    if (provided) return provided.value;
    const who = asker
      ? `plugin "${asker}" uses the "${name}" service`
      : `the "${name}" service was asked for`;
    const declaredBy = this.#declared.get(name);
    if (declaredBy !== undefined)
      throw new HubosError(
        'KERNEL_STATE',
        `${who}, which plugin "${declaredBy}" provides during boot but has not yet: use it once boot is done, or in a hook of a plugin that lists "${declaredBy}" in its dependencies (its taps then run after those of "${declaredBy}")`,
        { details: { service: name, provider: declaredBy, ...(asker ? { plugin: asker } : {}) } },
      );
    throw new HubosError(
      'SERVICE_NOT_FOUND',
      `${who}, but no plugin provides it: add the plugin that does to agent.config.ts (a built-in service comes from the plugin of the same name, "${name}")${asker ? `, and list it in the dependencies of "${asker}"` : ''}`,
      { details: { service: name, ...(asker ? { plugin: asker } : {}) } },
    );
  }

  /** Declared services that were never provided, with the plugin that promised each. */
  missing(): { service: string; plugin: string }[] {
    return [...this.#declared]
      .filter(([name]) => !this.#provided.has(name))
      .map(([service, plugin]) => ({ service, plugin }));
  }
}
