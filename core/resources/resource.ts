import type { Sandbox } from '../sandbox/sandbox.ts';
import type { Store } from '../store/store.ts';
import type { ResourceContents } from '../tools/content.ts';

/** What a resource is read with. */
export interface ResourceContext {
  sandbox: Sandbox;
  store: Store;
  /** Who reads it (over HubOS, the caller's principal id): keep per-caller data under it. */
  principal?: string;
  signal: AbortSignal;
}

/** A resource as a list shows it. */
export interface ResourceInfo {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

/** Data an app offers to read by URI (MCP `resources/read`): a file, a record, a document. */
export interface Resource extends ResourceInfo {
  /** `<domain>:<action>` permissions reading it needs, checked against the permission policy. */
  permissions?: readonly string[];
  read(ctx: ResourceContext): ResourceContents[] | Promise<ResourceContents[]>;
}

/** Completes one argument: the values that start with what was typed so far. */
export type ArgumentCompleter = (
  value: string,
  context: {
    arguments: Record<string, string>;
    /** Who asks (over HubOS, the caller's principal id): complete only what they may see. */
    principal?: string;
    store?: Store;
  },
) => string[] | Promise<string[]>;

/**
 * A family of resources named by a URI template (RFC 6570 `{name}` and `{+path}`), e.g.
 * `file:///{+path}`: read with the values the URI gives its variables.
 */
export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  permissions?: readonly string[];
  /** The concrete resources it can list (shown beside the static ones); none by default. */
  list?(ctx: ResourceContext): ResourceInfo[] | Promise<ResourceInfo[]>;
  read(
    uri: string,
    variables: Record<string, string>,
    ctx: ResourceContext,
  ): ResourceContents[] | Promise<ResourceContents[]>;
  /** Completions for the template's variables, by name. */
  complete?: Record<string, ArgumentCompleter>;
}
