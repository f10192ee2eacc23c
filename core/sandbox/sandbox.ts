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
