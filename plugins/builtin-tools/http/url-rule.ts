import { HubosError } from '../../../core/index.ts';

/**
 * What a URL must be before any connection is made: http or https, without credentials. Its
 * address is checked as the connection is made (`guardedAgent`). Throws a model-readable error.
 */
export function checkUrl(url: URL): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw refused(`only http and https URLs are allowed, not ${url.protocol.slice(0, -1)} (${url.href})`);
  }
  if (url.username || url.password) {
    throw refused('credentials in the URL are not supported: send an authorization header instead');
  }
}

function refused(message: string): HubosError {
  return new HubosError('TOOL_FAILED', message);
}
