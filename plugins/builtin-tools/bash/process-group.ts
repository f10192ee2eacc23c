/**
 * The fallback where no PID namespace can be made: the command leads its own process group, and
 * what is left of the group is stopped when it ends. A process that calls `setsid` leaves the
 * group and survives; the startup warning says so.
 */
export function stopGroup(pid: number, graceMs: number): void {
  if (!signalGroup(pid, 'SIGTERM')) return; // nothing left in the group
  // Only when the group existed: a live group keeps its id from being reused by another process.
  // Unref'd: a straggler must not keep the server (or a test run) alive.
  setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs).unref();
}

export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    return process.kill(-pid, signal);
  } catch {
    return false; // ESRCH: the group is gone
  }
}
