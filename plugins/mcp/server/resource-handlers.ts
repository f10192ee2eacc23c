import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  type Resource as McpResource,
  type ResourceTemplate as McpResourceTemplate,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  errorMessage,
  type ResourceContents,
  type ResourceContext,
  type ResourceInfo,
} from '../../../core/index.ts';
import { RESOURCE_NOT_FOUND, toMcpError } from './mcp-errors.ts';
import { page } from './pages.ts';
import { checkRead, resourceVerdict } from './resource-access.ts';
import type { ServeContext } from './serve-context.ts';
import { findServed, servedResources, servedTemplates } from './served-resources.ts';
import { checkUriLength } from './subscriptions.ts';

/**
 * `resources/list`, `resources/templates/list`, `resources/read` and `resources/subscribe` /
 * `unsubscribe` over the kernel's resource registry (as `serve.resources` selects). Reads go
 * through the permission policy, as tool calls do.
 */
export function serveResources(ctx: ServeContext): void {
  const { server, kernel, serve } = ctx;
  const readContext = (signal: AbortSignal): ResourceContext => ({
    sandbox: kernel.sandbox,
    store: kernel.store,
    principal: ctx.principal,
    signal,
  });

  server.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => {
    // What the policy denies is not listed; a template's entries (its data) only where reading is allowed.
    const listed: McpResource[] = servedResources(kernel, serve)
      .filter((resource) => resourceVerdict(ctx.policy, resource).decision !== 'deny')
      .map(describeResource);
    for (const template of servedTemplates(kernel, serve)) {
      if (!template.list || resourceVerdict(ctx.policy, template).decision !== 'allow') continue;
      try {
        const found = await template.list(readContext(extra.signal));
        listed.push(...found.filter(isListable).map(describeResource));
      } catch (error) {
        // One failing template must not hide the others' resources.
        kernel.logger.warn(
          `mcp: listing the resources of ${template.uriTemplate} failed: ${errorMessage(error)}`,
        );
      }
    }
    const { items, nextCursor } = page(listed, request.params?.cursor);
    return { resources: items, ...(nextCursor ? { nextCursor } : {}) };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, (request) => {
    const templates: McpResourceTemplate[] = servedTemplates(kernel, serve).map((template) => ({
      uriTemplate: template.uriTemplate,
      name: template.name,
      ...optional(template, ['title', 'description', 'mimeType']),
    }));
    const { items, nextCursor } = page(templates, request.params?.cursor);
    return { resourceTemplates: items, ...(nextCursor ? { nextCursor } : {}) };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra): Promise<ReadResourceResult> => {
    const { uri } = request.params;
    checkUriLength(uri);
    const match = findServed(kernel, serve, uri);
    if (!match) throw notFound(uri);
    const entry = match.kind === 'resource' ? match.resource : match.template;
    await checkRead(entry, uri, {
      server,
      policy: ctx.policy,
      requestId: extra.requestId,
      signal: extra.signal,
    });
    let contents: ResourceContents[];
    try {
      contents =
        match.kind === 'resource'
          ? await match.resource.read(readContext(extra.signal))
          : await match.template.read(uri, match.variables, readContext(extra.signal));
    } catch (error) {
      throw toMcpError(error, `reading "${uri}"`);
    }
    if (!Array.isArray(contents) || !contents.every(isContents))
      throw new McpError(
        ErrorCode.InternalError,
        `reading "${uri}" gave no valid contents: its read() must return [{ uri, text }] or [{ uri, blob }] (base64)`,
      );
    return { contents };
  });

  server.setRequestHandler(SubscribeRequestSchema, (request) => {
    const { uri } = request.params;
    checkUriLength(uri);
    const match = findServed(kernel, serve, uri);
    if (!match) throw notFound(uri);
    const entry = match.kind === 'resource' ? match.resource : match.template;
    // Who may not read it may not watch it either; an `ask` is asked when it is read.
    if (resourceVerdict(ctx.policy, entry).decision === 'deny')
      throw new McpError(
        ErrorCode.InvalidRequest,
        `the permission policy denies reading "${uri}", so it cannot be watched either`,
      );
    ctx.subscriptions.add(uri);
    return {};
  });

  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    ctx.subscriptions.delete(request.params.uri);
    return {};
  });
}

function notFound(uri: string): McpError {
  return new McpError(
    RESOURCE_NOT_FOUND,
    `no resource "${uri}" is served here: list them with resources/list, and their templates with resources/templates/list`,
    { uri },
  );
}

/** A resource as a list shows it: its public fields only (not its permissions, nor its read function). */
function describeResource(resource: ResourceInfo): McpResource {
  return {
    uri: resource.uri,
    name: resource.name,
    ...optional(resource, ['title', 'description', 'mimeType', 'size']),
  };
}

function optional<T extends object, K extends keyof T>(source: T, keys: K[]): Partial<Pick<T, K>> {
  const picked: Partial<Pick<T, K>> = {};
  for (const key of keys) if (source[key] !== undefined) picked[key] = source[key];
  return picked;
}

/** A template's listed entry a client can take (a plugin may return anything at run time). */
function isListable(info: unknown): info is ResourceInfo {
  const entry = info as ResourceInfo | null;
  return typeof entry?.uri === 'string' && typeof entry.name === 'string';
}

function isContents(value: unknown): value is ResourceContents {
  const entry = value as Record<string, unknown> | null;
  return typeof entry?.uri === 'string' && (typeof entry.text === 'string' || typeof entry.blob === 'string');
}
