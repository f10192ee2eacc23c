import type { KernelView } from '../../../core/index.ts';
import { storedSessions } from './session-resources.ts';
import { workspaceFiles } from './workspace-resources.ts';

/**
 * The resources the mcp plugin offers itself: the workspace's files (`file:///{+path}`, needing
 * `fs:read`) and the caller's stored sessions (`hubos://sessions/{agent}/{session}`, needing
 * `sessions:read`). `serve.resources` can leave them out like any other.
 */
export function registerBuiltinResources(kernel: KernelView): void {
  kernel.resources.registerTemplate(workspaceFiles(kernel));
  kernel.resources.registerTemplate(storedSessions(kernel));
}
