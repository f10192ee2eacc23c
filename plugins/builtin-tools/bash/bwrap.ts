import { accessSync, constants } from 'node:fs';
import { HubosError } from '../../../core/index.ts';
import { hostView } from './host-view.ts';
import { DEFAULT_LIMITS } from './limits.ts';
import { initCommand } from './ns-init.ts';
import { type BashOptions, DEFAULT_BWRAP_PATH, DEFAULT_SHELL, type SandboxOptions } from './options.ts';
import { type ProbeRun, runProbeCommand, runProbeCommandAsync } from './probe-run.ts';
import { asSandboxUser, DEFAULT_SANDBOX_USER, mustDropRoot } from './sandbox-user.ts';

const INSTALL = 'install it with "apt-get install bubblewrap"';
const PROC_READ_ONLY = ['/proc/sys', '/proc/sysrq-trigger', '/proc/irq', '/proc/bus', '/proc/fs'];

/**
 * bubblewrap arguments that make a real boundary, as root too:
 * - an unprivileged user namespace with every capability dropped, so `mount` and friends fail;
 *   user namespaces cannot be nested (`--disable-userns`, where bwrap has it);
 * - an allow-list of the host, read-only (see `hostView`): the system's programs and libraries and
 *   the /etc files commands need. Nothing else is mounted — no /home, /srv, /var or /run — so no host
 *   Unix socket is there, wherever it lives; /tmp, /var/tmp, /run and /dev/shm are fresh and empty,
 *   in memory, each capped at `scratchBytes` (where bwrap has `--size`) so they cannot fill the RAM;
 * - the workspace, the only writable folder, bound at its own path (from `source`, where root had
 *   to show it elsewhere first: see `workspaceSource`);
 * - no network unless asked, its own PID namespace with a fresh /proc (no server environ to read).
 * The command runs under our init as PID 1 (see ns-init.ts).
 */
export function bwrapArgs(
  sandbox: SandboxOptions,
  workspace?: string,
  shell = DEFAULT_SHELL,
  hide: readonly string[] = [],
  source = workspace,
  scratchBytes = DEFAULT_LIMITS.fileBytes,
): string[] {
  const user = mustDropRoot() ? (sandbox.user ?? DEFAULT_SANDBOX_USER) : undefined;
  const view = hostView({ workspace, shell, expose: sandbox.expose, hide, user });
  const path = sandbox.bwrapPath ?? DEFAULT_BWRAP_PATH;
  // biome-ignore format: one flag and its values per line
  return [
    '--unshare-all',
    '--unshare-user',
    ...(supportsDisableUserns(path) ? ['--disable-userns'] : []),
    '--cap-drop', 'ALL',
    ...(sandbox.network ? ['--share-net'] : []),
    ...view.readOnly.flatMap(([source, readable]) => ['--ro-bind-try', source, readable]),
    ...view.symlinks.flatMap(([target, link]) => ['--symlink', target, link]),
    '--dev', '/dev',
    '--proc', '/proc',
    // The kernel's global knobs stay read-only whoever the command is (bwrap's own cover of them
    // is skipped when it cannot write there, which is exactly when it matters).
    ...PROC_READ_ONLY.flatMap((path) => ['--ro-bind-try', path, path]),
    ...['/tmp', '/var/tmp', '/run', '/dev/shm'].flatMap((folder) => [...sized(path, scratchBytes), '--tmpfs', folder]),
    '--symlink', '../run', '/var/run',
    ...view.hide.flatMap((folder) => ['--tmpfs', folder]),
    ...view.exposed.flatMap((readable) => ['--ro-bind-try', readable, readable]),
    ...(workspace && source ? ['--bind', source, workspace, '--chdir', workspace] : []),
    // The root bwrap built is read-only too: only the workspace and the fresh scratch folders take writes.
    '--remount-ro', '/',
    '--as-pid-1',
    '--die-with-parent',
    // A new session: a command cannot push keystrokes into the server's terminal (TIOCSTI).
    '--new-session',
    '--',
  ];
}

/** Why bubblewrap cannot sandbox commands here, or undefined when a real sandboxed `true` runs. */
export type BwrapProbe = { ok: true } | { ok: false; missing: boolean; reason: string };

const probes = new Map<string, BwrapProbe>();

/** Runs one sandboxed `true` (once per setup and process), so missing namespace support shows too. */
export function probeBwrap(sandbox: SandboxOptions, shell = DEFAULT_SHELL): BwrapProbe {
  const key = JSON.stringify([sandbox, shell]);
  let probe = probes.get(key);
  if (!probe) {
    const plan = probePlan(sandbox, shell);
    probe = 'answer' in plan ? plan.answer : plan.interpret(runProbeCommand(plan.file, plan.args));
    probes.set(key, probe);
  }
  return probe;
}

/** The same probe in the background; `probeBwrap` answers from it once it is done. */
export async function probeBwrapSoon(sandbox: SandboxOptions, shell = DEFAULT_SHELL): Promise<BwrapProbe> {
  const key = JSON.stringify([sandbox, shell]);
  const known = probes.get(key);
  if (known) return known;
  const bwrap = sandbox.bwrapPath ?? DEFAULT_BWRAP_PATH;
  // Asked first, so building the probe's arguments finds the answer rather than asking again.
  if (!helps.has(bwrap) && isExecutable(bwrap)) {
    const help = helpText(await runProbeCommandAsync(bwrap, ['--help'], 5_000));
    if (help !== undefined && !helps.has(bwrap)) helps.set(bwrap, help);
  }
  const plan = probePlan(sandbox, shell);
  const probe =
    'answer' in plan ? plan.answer : plan.interpret(await runProbeCommandAsync(plan.file, plan.args));
  if (!probes.has(key)) probes.set(key, probe);
  return probes.get(key)!;
}

type ProbePlan =
  | { answer: BwrapProbe }
  | { file: string; args: string[]; interpret: (run: ProbeRun) => BwrapProbe };

/** The probe's command (a sandboxed `true`) and how to read its end, or the answer when bwrap is missing. */
function probePlan(sandbox: SandboxOptions, shell: string): ProbePlan {
  const bwrap = sandbox.bwrapPath ?? DEFAULT_BWRAP_PATH;
  // Checked first: started through setpriv (a root server), a missing bwrap is only setpriv's complaint.
  try {
    accessSync(bwrap, constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      answer: { ok: false, missing: true, reason: `bubblewrap is not available at ${bwrap} (${code})` },
    };
  }
  const command = asSandboxUser(
    { file: bwrap, args: [...bwrapArgs(sandbox, undefined, shell), ...initCommand(shell, 'true')] },
    sandbox.user ?? DEFAULT_SANDBOX_USER,
  );
  return {
    file: command.file,
    args: command.args,
    interpret(run) {
      if (run.exitCode === 0) return { ok: true };
      if (run.code === 'ENOENT' || run.code === 'EACCES') {
        return { ok: false, missing: true, reason: `bubblewrap is not available at ${bwrap} (${run.code})` };
      }
      const why = String(run.stderr ?? '').trim() || run.message;
      return {
        ok: false,
        missing: false,
        reason: `bubblewrap at ${bwrap} cannot create its sandbox: ${why}`,
      };
    },
  };
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Fails startup when a configured bwrap sandbox cannot work — never a silent fallback to running
 * commands unsandboxed.
 */
export function checkSandbox(options: BashOptions = {}): void {
  const sandbox = options.sandbox;
  if (!sandbox || sandbox.kind === 'none') return;
  if (sandbox.kind !== 'bwrap') {
    throw new HubosError(
      'CONFIG_INVALID',
      `sandbox.kind must be "none" or "bwrap", not ${JSON.stringify(sandbox.kind)}`,
    );
  }
  const probe = probeBwrap(sandbox, options.shell);
  if (probe.ok) return;
  const details = { details: { key: 'sandbox', bwrapPath: sandbox.bwrapPath ?? DEFAULT_BWRAP_PATH } };
  if (probe.missing) {
    throw new HubosError(
      'CONFIG_INVALID',
      `sandbox.kind is "bwrap" but ${probe.reason}: ${INSTALL}, or set sandbox.bwrapPath`,
      details,
    );
  }
  const source = /Can't find source path (\S+?):/.exec(probe.reason)?.[1];
  if (source) {
    const who = mustDropRoot()
      ? `uid ${(sandbox.user ?? DEFAULT_SANDBOX_USER).uid} (the sandbox's account)`
      : "the server's user";
    throw new HubosError(
      'CONFIG_INVALID',
      `sandbox.kind is "bwrap" but ${probe.reason}. The sandbox shows ${source} (it is in sandbox.expose, or the shell), but ${who} may not reach it: let it through every folder above it, or take it out of sandbox.expose`,
      details,
    );
  }
  throw new HubosError(
    'CONFIG_INVALID',
    `sandbox.kind is "bwrap" but ${probe.reason}. It needs unprivileged user namespaces (kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ also kernel.apparmor_restrict_unprivileged_userns=0) or a container that allows them, and /bin/bash; if bwrap is missing or broken, ${INSTALL}`,
    details,
  );
}

/** Each bwrap's `--help`, kept once it answered: which options this version has. */
const helps = new Map<string, string>();

function bwrapHelp(bwrap: string): string | undefined {
  let help = helps.get(bwrap);
  if (help === undefined) {
    help = helpText(runProbeCommand(bwrap, ['--help'], 5_000));
    if (help !== undefined) helps.set(bwrap, help);
  }
  return help;
}

/**
 * `--disable-userns` came with bubblewrap 0.8; older ones refuse unknown options. Taken as yes when
 * `--help` did not answer: a bwrap that refuses the option fails its sandbox, where leaving the
 * option out would quietly allow nested namespaces.
 */
function supportsDisableUserns(bwrap: string): boolean {
  const help = bwrapHelp(bwrap);
  return help === undefined ? true : help.includes('--disable-userns');
}

/**
 * `--size <bytes>` before a `--tmpfs`, where this bwrap has the option (0.8 and later); taken as no
 * when `--help` did not answer, since an unknown option would fail every command.
 */
function sized(bwrap: string, bytes: number): string[] {
  return bwrapHelp(bwrap)?.includes('--size') ? ['--size', String(bytes)] : [];
}

/** `bwrap --help`'s text; undefined when it did not answer (it could not run, failed, or timed out under load). */
function helpText(run: ProbeRun): string | undefined {
  return run.exitCode === 0 ? run.stdout : undefined;
}

/**
 * Whether `bwrap --help` lists `--disable-userns`; undefined when it did not answer. Not remembered
 * then (see `supportsDisableUserns`).
 * @internal
 */
export function helpSays(run: ProbeRun): boolean | undefined {
  return helpText(run)?.includes('--disable-userns');
}
