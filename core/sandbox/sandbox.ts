import { mkdirSync, realpathSync } from 'node:fs';

/**
 * Where tools act. The workspace root is the only folder file tools may touch;
 * the confinement and command-runner parts arrive with the built-in tools.
 */
export interface Sandbox {
  /** Absolute path of the workspace root. */
  readonly root: string;
}

export function createSandbox(root: string): Sandbox {
  return Object.freeze({ root });
}

/** The workspace as the kernel opens it: created if missing, its real path as root. */
export function openWorkspace(root: string): Sandbox {
  mkdirSync(root, { recursive: true });
  return createSandbox(realpathSync(root));
}
