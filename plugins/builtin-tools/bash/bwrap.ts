import { execaSync } from 'execa';
import { errorMessage, HubosError } from '../../../core/index.ts';
import { type BashOptions, DEFAULT_BWRAP_PATH, DEFAULT_SHELL, type SandboxOptions } from './options.ts';

const INSTALL = 'install it with "apt-get install bubblewrap"';

/**
 * bubblewrap arguments that make a real boundary: the host read-only, only the workspace writable,
 * a private /tmp, no network (unless asked), its own PID namespace so every process dies with it.
 * The workspace is bound after `--tmpfs /tmp` so a workspace under /tmp is not hidden by it.
 */
export function bwrapArgs(sandbox: SandboxOptions, workspace?: string): string[] {
  // biome-ignore format: one flag and its values per line
  return [
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    '--tmpfs', '/tmp',
    ...(workspace ? ['--bind', workspace, workspace, '--chdir', workspace] : []),
    '--unshare-all',
    ...(sandbox.network ? ['--share-net'] : []),
    '--die-with-parent',
    // A new session: a command cannot push keystrokes into the server's terminal (TIOCSTI).
    '--new-session',
    '--',
  ];
}

/**
 * Fails startup when the configured sandbox cannot work — never a silent fallback to running
 * commands unsandboxed. Runs one real sandboxed `true`, so missing namespace support shows here too.
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
  const bwrap = sandbox.bwrapPath ?? DEFAULT_BWRAP_PATH;
  const probe = execaSync(bwrap, [...bwrapArgs(sandbox), options.shell ?? DEFAULT_SHELL, '-c', 'true'], {
    reject: false,
    stdin: 'ignore',
    timeout: 10_000,
  });
  if (probe.exitCode === 0) return;
  if (probe.code === 'ENOENT' || probe.code === 'EACCES') {
    throw new HubosError(
      'CONFIG_INVALID',
      `sandbox.kind is "bwrap" but bubblewrap is not available at ${bwrap} (${probe.code}): ${INSTALL}, or set sandbox.bwrapPath`,
      { details: { key: 'sandbox', bwrapPath: bwrap } },
    );
  }
  const why = String(probe.stderr ?? '').trim() || errorMessage(probe.shortMessage ?? probe.message);
  throw new HubosError(
    'CONFIG_INVALID',
    `sandbox.kind is "bwrap" but bubblewrap at ${bwrap} cannot create its sandbox: ${why}. It needs unprivileged user namespaces (kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ also kernel.apparmor_restrict_unprivileged_userns=0) or a container that allows them; if bwrap is missing or broken, ${INSTALL}`,
    { details: { key: 'sandbox', bwrapPath: bwrap } },
  );
}
