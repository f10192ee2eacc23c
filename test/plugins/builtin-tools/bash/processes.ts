/** Looking for what a `bash` call left running, from the host: by a unique marker in the command line. */
import { readdirSync, readFileSync } from 'node:fs';
import { resolveLauncher } from '../../../../plugins/builtin-tools/bash/launcher.ts';
import type { BashOptions } from '../../../../plugins/builtin-tools/bash/options.ts';

let count = 0;

/** A `sleep` duration no other process uses: `sleep <marker>` is findable in /proc and harmless. */
export function marker(): string {
  count++;
  return `1000.${process.pid}${String(count).padStart(4, '0')}`;
}

/** Live (not zombie) processes of the whole host, namespaces included, whose command line holds `token`. */
export function processesWith(token: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const zombie = stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z';
        return !zombie && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(token);
      } catch {
        return false; // exited while we looked
      }
    })
    .map(Number);
}

/** Kills what a failed test left behind. */
export function killAll(token: string): void {
  for (const pid of processesWith(token)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
}

/** Which launcher these options get on this machine (bwrap, pid-namespace or process-group). */
export function launcherKind(options: BashOptions = {}): string {
  return resolveLauncher(options).launcher.kind;
}
