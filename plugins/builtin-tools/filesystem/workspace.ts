import { realpath } from 'node:fs/promises';
import type { Sandbox } from '../../../core/index.ts';

// The kernel already roots the sandbox at a real path; resolving it once more (cached per sandbox)
// keeps the tools correct for a hand-made sandbox whose root goes through a symlink (macOS /tmp).
const roots = new WeakMap<Sandbox, Promise<string>>();

/** The real path of the workspace root every path is confined to. */
export function workspaceRoot(sandbox: Sandbox): Promise<string> {
  let root = roots.get(sandbox);
  if (!root) {
    root = realpath(sandbox.root).catch((error: unknown) => {
      roots.delete(sandbox);
      throw new Error(`the workspace folder is not available: ${sandbox.root}`, { cause: error });
    });
    roots.set(sandbox, root);
  }
  return root;
}
