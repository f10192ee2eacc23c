import {
  type KernelView,
  matchUriTemplate,
  type Prompt,
  type Resource,
  type ResourceMatch,
  type ResourceTemplate,
} from '../../../core/index.ts';
import { matchesAnyGlob } from '../../../core/internal.ts';
import type { McpServeConfig } from '../config.ts';

/** Whether `serve.resources` / `serve.prompts` selects `id` (a URI, a URI template, a prompt's name). */
export function selects(selection: boolean | readonly string[] | undefined, id: string): boolean {
  if (selection === undefined || selection === true) return true;
  if (selection === false) return false;
  return matchesAnyGlob(id, selection);
}

/** The registry's resources `serve.resources` selects, by URI. */
export function servedResources(kernel: KernelView, serve: McpServeConfig): Resource[] {
  return kernel.resources.list().filter((resource) => selects(serve.resources, resource.uri));
}

/** The registry's resource templates `serve.resources` selects, by URI template. */
export function servedTemplates(kernel: KernelView, serve: McpServeConfig): ResourceTemplate[] {
  return kernel.resources.templates().filter((template) => selects(serve.resources, template.uriTemplate));
}

/**
 * What a URI names among the served resources: a resource, else the first served template that
 * matches it. A resource or template outside `serve.resources` is not found, as if absent.
 */
export function findServed(
  kernel: KernelView,
  serve: McpServeConfig,
  uri: string,
): ResourceMatch | undefined {
  const resource = servedResources(kernel, serve).find((candidate) => candidate.uri === uri);
  if (resource) return { kind: 'resource', resource };
  for (const template of servedTemplates(kernel, serve)) {
    const variables = matchUriTemplate(template.uriTemplate, uri);
    if (variables) return { kind: 'template', template, variables };
  }
  return undefined;
}

/** The registry's prompts `serve.prompts` selects. */
export function servedRegistryPrompts(kernel: KernelView, serve: McpServeConfig): Prompt[] {
  return kernel.prompts.list().filter((prompt) => selects(serve.prompts, prompt.name));
}
