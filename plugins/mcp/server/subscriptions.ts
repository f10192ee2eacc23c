import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** Most resources one session may watch at once: a client cannot make the server remember without end. */
export const MAX_SUBSCRIPTIONS = 1000;
/** The longest resource URI the server takes (read, watch, complete): what a session keeps stays small. */
export const MAX_URI_LENGTH = 8192;

/** Refuses a URI longer than any resource's, before it is matched or kept. */
export function checkUriLength(uri: string): void {
  if (uri.length > MAX_URI_LENGTH)
    throw new McpError(
      ErrorCode.InvalidParams,
      `the resource URI is ${uri.length} characters long, over the ${MAX_URI_LENGTH} this server takes`,
    );
}

/** The resource URIs a session subscribed to (`resources/subscribe`): it hears when they change. */
export class Subscriptions {
  readonly #uris = new Set<string>();

  add(uri: string): void {
    checkUriLength(uri);
    if (!this.#uris.has(uri) && this.#uris.size >= MAX_SUBSCRIPTIONS)
      throw new McpError(
        ErrorCode.InvalidRequest,
        `this session already watches ${MAX_SUBSCRIPTIONS} resources: unsubscribe from some (resources/unsubscribe) first`,
      );
    this.#uris.add(uri);
  }

  delete(uri: string): void {
    this.#uris.delete(uri);
  }

  has(uri: string): boolean {
    return this.#uris.has(uri);
  }
}
