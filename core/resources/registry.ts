import { HubosError } from '../errors.ts';
import type { Resource, ResourceTemplate } from './resource.ts';
import { matchUriTemplate, templateVariables } from './uri-template.ts';

/** What a URI names: a registered resource, or a template's resource with the URI's variables. */
export type ResourceMatch =
  | { kind: 'resource'; resource: Resource }
  | { kind: 'template'; template: ResourceTemplate; variables: Record<string, string> };

/**
 * The resources and resource templates an app offers (MCP serves them), registered by plugins as
 * tools are. Listeners hear of list changes and of a resource's contents changing (`updated`).
 */
export class ResourceRegistry {
  readonly #resources = new Map<string, Resource>();
  readonly #templates = new Map<string, ResourceTemplate>();
  readonly #changed = new Set<() => void>();
  readonly #updated = new Set<(uri: string) => void>();

  /** Adds a resource. Throws RESOURCE_INVALID for a malformed one, RESOURCE_DUPLICATE for a taken URI. */
  register(resource: Resource): void {
    check(resource.uri, resource.name, resource.read, 'uri');
    if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(resource.uri))
      throw invalid(
        `resource "${resource.uri}": the uri needs a scheme, e.g. "docs://readme" or "file:///a.txt"`,
      );
    if (this.#resources.has(resource.uri))
      throw new HubosError('RESOURCE_DUPLICATE', `a resource "${resource.uri}" is already registered`);
    this.#resources.set(resource.uri, resource);
    this.#emitChanged();
  }

  /** Adds a resource template. Throws RESOURCE_INVALID, or RESOURCE_DUPLICATE for a taken template. */
  registerTemplate(template: ResourceTemplate): void {
    check(template.uriTemplate, template.name, template.read, 'uriTemplate');
    if (templateVariables(template.uriTemplate).length === 0)
      throw invalid(
        `resource template "${template.uriTemplate}" has no {variable}: register it as a resource`,
      );
    if (this.#templates.has(template.uriTemplate))
      throw new HubosError(
        'RESOURCE_DUPLICATE',
        `a resource template "${template.uriTemplate}" is already registered`,
      );
    this.#templates.set(template.uriTemplate, template);
    this.#emitChanged();
  }

  /** Removes a resource (by uri) or a template (by uriTemplate); false when there was none. */
  unregister(uriOrTemplate: string): boolean {
    const removed = this.#resources.delete(uriOrTemplate) || this.#templates.delete(uriOrTemplate);
    if (removed) this.#emitChanged();
    return removed;
  }

  list(): Resource[] {
    return [...this.#resources.values()];
  }

  templates(): ResourceTemplate[] {
    return [...this.#templates.values()];
  }

  /** What `uri` names: a resource first, then the first template that matches it. */
  find(uri: string): ResourceMatch | undefined {
    const resource = this.#resources.get(uri);
    if (resource) return { kind: 'resource', resource };
    for (const template of this.#templates.values()) {
      const variables = matchUriTemplate(template.uriTemplate, uri);
      if (variables) return { kind: 'template', template, variables };
    }
    return undefined;
  }

  /** Tells subscribers that a resource's contents changed (MCP `notifications/resources/updated`). */
  updated(uri: string): void {
    for (const listener of this.#updated) listener(uri);
  }

  /** Calls `listener` when resources or templates are added or removed; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.#changed.add(listener);
    return () => this.#changed.delete(listener);
  }

  /** Calls `listener` with the uri of each resource said to be `updated`; returns the unsubscribe function. */
  onUpdated(listener: (uri: string) => void): () => void {
    this.#updated.add(listener);
    return () => this.#updated.delete(listener);
  }

  #emitChanged(): void {
    for (const listener of this.#changed) listener();
  }
}

function check(id: unknown, name: unknown, read: unknown, field: string): void {
  if (typeof id !== 'string' || id === '') throw invalid(`a resource needs a non-empty ${field}`);
  if (typeof name !== 'string' || name === '') throw invalid(`resource "${id}" needs a name`);
  if (typeof read !== 'function') throw invalid(`resource "${id}" needs a read() function`);
}

const invalid = (message: string) => new HubosError('RESOURCE_INVALID', message);
