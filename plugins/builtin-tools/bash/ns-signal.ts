import { readdirSync, readFileSync } from 'node:fs';

/**
 * Signals PID 1 of a command's namespace: the launcher's (bwrap's, unshare's) only child. SIGKILL
 * there makes the kernel kill the whole namespace before the launcher sees its child exit, so once
 * the launcher has exited nothing of the command is left. Killing the launcher instead would
 * return while the namespace is still being torn down.
 * Right after the start the child may not exist yet: try again until it does or the launcher is gone.
 */
export function signalNamespace(launcherPid: number, signal: NodeJS.Signals, running: () => boolean): void {
  const init = childOf(launcherPid);
  if (init !== undefined) {
    try {
      process.kill(init, signal);
    } catch {} // ESRCH: it has just exited, and the namespace with it
    return;
  }
  if (running()) setTimeout(() => signalNamespace(launcherPid, signal, running), 5).unref();
}

function childOf(pid: number): number | undefined {
  try {
    const [first] = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ');
    return first ? Number(first) : undefined;
  } catch {
    return scanForChild(pid); // a kernel without CONFIG_PROC_CHILDREN
  }
}

function scanForChild(parent: number): number | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces): state, ppid, …
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent) return Number(name);
    } catch {} // exited while we looked
  }
  return undefined;
}
