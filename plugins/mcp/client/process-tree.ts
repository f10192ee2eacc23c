import { readdirSync, readFileSync } from 'node:fs';

/**
 * The pids of a process's descendants, read from /proc (Linux; elsewhere none). The SDK stops only
 * the direct child of a stdio server: a server started through a wrapper (`sh -c`, `npm exec`)
 * would outlive it, so its tree is noted before closing and what is left is stopped after.
 */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Fields after the command (in parentheses, which may hold spaces): state, then the parent's pid.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const siblings = children.get(parent) ?? [];
      siblings.push(Number(entry));
      children.set(parent, siblings);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const visit = (parent: number) => {
    for (const child of children.get(parent) ?? []) {
      found.push(child);
      visit(child);
    }
  };
  visit(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** SIGTERM to those still running, then SIGKILL after `graceMs` to any that ignored it. */
export async function stopProcesses(pids: readonly number[], graceMs = 1_000): Promise<void> {
  const running = pids.filter(alive);
  if (running.length === 0) return;
  for (const pid of running) signal(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (running.some(alive) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 25));
  for (const pid of running.filter(alive)) signal(pid, 'SIGKILL');
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}
