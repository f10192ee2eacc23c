/**
 * Stops what is left of a process group: SIGTERM now, SIGKILL after `graceMs` for processes that
 * ignore it. Commands run as group leaders (execa `killDescendants`), so `-pid` is their whole tree.
 */
export function stopGroup(pid: number, graceMs: number): void {
  if (!signalGroup(pid, 'SIGTERM')) return; // nothing left in the group
  // Only when the group existed: a live group keeps its id from being reused by another process.
  // Unref'd: a straggler must not keep the server (or a test run) alive.
  setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs).unref();
}

function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    return process.kill(-pid, signal);
  } catch {
    return false; // ESRCH: the group is gone
  }
}
