import { commandLine, resolveLauncher } from './launcher.ts';
import { type BashOptions, DEFAULT_SHELL } from './options.ts';
import { closedFolder, reachableBy } from './private-parents.ts';
import { runProbeCommandAsync } from './probe-run.ts';
import { DEFAULT_SANDBOX_USER, mustDropRoot } from './sandbox-user.ts';

/**
 * Runs a sandboxed `true` in the workspace itself, the way every command will run, once the kernel
 * has opened it, when the workspace lies under a folder the sandbox user of a root server cannot
 * enter: whether root can show it to that user shows here, at startup, rather than as each
 * command's stderr. Undefined when it works or is not needed; otherwise what is wrong and how to fix it.
 */
export async function workspaceProblem(options: BashOptions, workspace: string): Promise<string | undefined> {
  const { launcher } = resolveLauncher(options);
  if (launcher.kind !== 'bwrap') return undefined;
  const user = launcher.sandbox.user ?? DEFAULT_SANDBOX_USER;
  // Elsewhere the sandbox user reaches the workspace by its path, and the startup probe (the same
  // sandbox without it) has answered already: no second bwrap on the way to a server's start.
  if (!mustDropRoot() || reachableBy(workspace, user)) return undefined;
  const shell = options.shell ?? DEFAULT_SHELL;
  const { file, args } = commandLine(launcher, { shell, command: 'true', cwd: workspace });
  const run = await runProbeCommandAsync(file, args);
  if (run.exitCode === 0) return undefined;
  const why = String(run.stderr ?? '').trim() || run.message;
  const closed = closedFolder(workspace, user) ?? workspace;
  const fix = `the sandbox runs as uid ${user.uid}, which may not enter ${closed}; a root server shows the workspace to it through a mount namespace of its own, which needs CAP_SYS_ADMIN and util-linux "unshare" and "mount". Give the server that capability, move the workspace (config key "workspace") under a folder uid ${user.uid} may enter, or let it through with "chmod o+x ${closed}"`;
  return `bubblewrap cannot run commands in the workspace ${workspace}: ${why}. To fix it: ${fix}`;
}
