/**
 * Imported first by the `hubos` command: on a Node.js too old for HubOS it prints one line (the
 * versions and how to upgrade, no stack trace) and exits, before anything else loads.
 */
import { unsupportedNodeMessage } from '../core/node-version.ts';

const message = unsupportedNodeMessage();
if (message !== undefined) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
