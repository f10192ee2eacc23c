/**
 * Imported first by `hubos`: on a Node.js too old for HubOS, importing it throws an error naming
 * both versions and how to upgrade, which an app that embeds HubOS can catch. It imports nothing
 * an old Node.js could not load, so it runs before anything that would fail less clearly.
 */
import { unsupportedNodeMessage } from './node-version.ts';

const message = unsupportedNodeMessage();
if (message !== undefined) {
  throw Object.assign(new Error(message), { code: 'NODE_UNSUPPORTED' });
}
