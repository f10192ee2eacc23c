import { type ResourceLimits, ulimitLine } from './limits.ts';

/**
 * PID 1 of a command's PID namespace: a bash script that runs the command as its child and exits
 * with its status. The command must not be PID 1 itself: PID 1 ignores every signal it has no
 * handler for (`kill $$` would do nothing), and orphans would never be reaped.
 *
 * - SIGTERM from the server (a timeout) is passed to every process of the namespace (`kill -1`).
 * - The command gets SIGINT and SIGQUIT back: bash ignores them in background jobs (`&`).
 * - `wait` is repeated while the command lives, since a trapped signal interrupts it.
 * - When PID 1 exits, the kernel kills what is left in the namespace before its parent hears of it.
 * - A command killed by a signal N is reported the way a shell does: exit code 128 + N.
 */
const INIT_SCRIPT = [
  'trap "kill -TERM -1 2>/dev/null" TERM',
  '(trap - INT QUIT; exec "$@") &',
  'child=$!',
  'while wait "$child" 2>/dev/null; status=$?; kill -0 "$child" 2>/dev/null; do :; done',
  'exit "$status"',
].join('\n');

/** The shell the init script needs (bash: dash cannot give a background job its SIGINT back). */
export const INIT_SHELL = '/bin/bash';

/**
 * `bash -c <init> hubos-init <shell> -c <command>`: the command line to start in a PID namespace.
 * With `limits`, the init sets them first, so they hold for every process of the command.
 */
export function initCommand(shell: string, command: string, limits?: ResourceLimits): string[] {
  const script = limits ? `${ulimitLine(limits)}\n${INIT_SCRIPT}` : INIT_SCRIPT;
  return [INIT_SHELL, '-c', script, 'hubos-init', shell, '-c', command];
}

/** `bash -c <limits; exec> hubos-limits <shell> -c <command>`: the limits without a namespace. */
export function limitedCommand(shell: string, command: string, limits: ResourceLimits): string[] {
  return [INIT_SHELL, '-c', `${ulimitLine(limits)}; exec "$@"`, 'hubos-limits', shell, '-c', command];
}
