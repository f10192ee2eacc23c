import { type BwrapProbe, bwrapArgs, probeBwrap, probeBwrapSoon } from './bwrap.ts';
import { DEFAULT_LIMITS, type ResourceLimits } from './limits.ts';
import { initCommand, limitedCommand } from './ns-init.ts';
import { type BashOptions, DEFAULT_BWRAP_PATH, DEFAULT_SHELL, type SandboxOptions } from './options.ts';
import { type PidNamespace, probePidNamespace, probePidNamespaceSoon } from './pid-namespace.ts';
import { workspaceSource } from './private-parents.ts';
import { asSandboxUser, DEFAULT_SANDBOX_USER, handOverWorkspace, mustDropRoot } from './sandbox-user.ts';

/**
 * How commands are started, strongest first: in bubblewrap; unsandboxed in a PID namespace of
 * their own; or, where neither works, unsandboxed as a process group (what `setsid` escapes).
 */
export type Launcher =
  | { kind: 'bwrap'; sandbox: SandboxOptions }
  | { kind: 'pid-namespace'; namespace: PidNamespace }
  | { kind: 'process-group'; reason: string };

export interface ResolvedLauncher {
  launcher: Launcher;
  /** Set when commands run unsandboxed without the operator asking for it: why bubblewrap is not used. */
  fallbackReason?: string;
}

/**
 * The launcher for these options. `sandbox` unset means bubblewrap when it works here (probed
 * once), else unsandboxed; a configured `bwrap` is used as is (`checkSandbox` fails startup when
 * it cannot work, and each call fails rather than run unsandboxed).
 */
export function resolveLauncher(options: BashOptions): ResolvedLauncher {
  const sandbox = options.sandbox;
  if (sandbox?.kind === 'bwrap') return { launcher: { kind: 'bwrap', sandbox } };
  if (sandbox?.kind === 'none') return { launcher: unsandboxed() };
  const detected: SandboxOptions = { kind: 'bwrap', network: false };
  const probe: BwrapProbe = probeBwrap(detected, options.shell ?? DEFAULT_SHELL);
  if (probe.ok) return { launcher: { kind: 'bwrap', sandbox: detected } };
  return { launcher: unsandboxed(), fallbackReason: probe.reason };
}

/**
 * Runs in the background the probes `resolveLauncher(options)` will need, so a server does the rest
 * of its start meanwhile (each probe is a process that takes milliseconds) and `resolveLauncher`
 * answers from them. Never rejects: a probe that could not run is asked again when needed.
 */
export async function probeLauncherSoon(options: BashOptions): Promise<void> {
  try {
    const sandbox = options.sandbox;
    const shell = options.shell ?? DEFAULT_SHELL;
    // A configured bwrap is probed by checkSandbox with the checked config (its defaults applied).
    if (sandbox?.kind === 'bwrap') return;
    if (sandbox?.kind === 'none' || !(await probeBwrapSoon({ kind: 'bwrap', network: false }, shell)).ok)
      await probePidNamespaceSoon();
  } catch {
    // options not yet checked (a wrong type): resolveLauncher probes with the checked ones
  }
}

function unsandboxed(): Launcher {
  const probe = probePidNamespace();
  return probe.ok
    ? { kind: 'pid-namespace', namespace: probe.namespace }
    : { kind: 'process-group', reason: probe.reason };
}

/** The program and arguments that run `<shell> -c <command>` with this launcher, under `limits`. */
export function commandLine(
  launcher: Launcher,
  spec: {
    shell: string;
    command: string;
    cwd: string;
    hide?: readonly string[] | undefined;
    limits?: ResourceLimits | undefined;
  },
): { file: string; args: string[] } {
  const limits = spec.limits ?? {};
  switch (launcher.kind) {
    case 'bwrap': {
      const user = launcher.sandbox.user ?? DEFAULT_SANDBOX_USER;
      handOverWorkspace(spec.cwd, user);
      const view = mustDropRoot() ? workspaceSource(spec.cwd, user) : { source: spec.cwd };
      const command = asSandboxUser(
        {
          file: launcher.sandbox.bwrapPath ?? DEFAULT_BWRAP_PATH,
          args: [
            ...bwrapArgs(
              launcher.sandbox,
              spec.cwd,
              spec.shell,
              spec.hide,
              view.source,
              // The scratch folders hold, each, what one file may: they live in memory.
              limits.fileBytes ?? DEFAULT_LIMITS.fileBytes,
            ),
            ...initCommand(spec.shell, spec.command, limits),
          ],
        },
        user,
      );
      return view.wrap ? view.wrap(command) : command;
    }
    case 'pid-namespace':
      return {
        file: launcher.namespace.unshare,
        args: [...launcher.namespace.args, ...initCommand(spec.shell, spec.command, limits)],
      };
    case 'process-group': {
      const [file, ...args] = limitedCommand(spec.shell, spec.command, limits);
      return { file: file!, args };
    }
  }
}
