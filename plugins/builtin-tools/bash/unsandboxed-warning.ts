import { resolveLauncher } from './launcher.ts';
import type { BashOptions } from './options.ts';

const ENABLE =
  'Install bubblewrap ("apt-get install bubblewrap") and the bash tool sandboxes commands by default, or set sandbox: { kind: "none" } to run them unsandboxed on purpose';

/**
 * What the operator must hear at startup when an agent can run `bash` commands without a sandbox:
 * why (bubblewrap missing or broken, or `kind: "none"` configured), what the commands can reach,
 * and how to sandbox them. Undefined when they run in bubblewrap.
 */
export function unsandboxedWarning(options: BashOptions, agent: string): string | undefined {
  const { launcher, fallbackReason } = resolveLauncher(options);
  if (launcher.kind === 'bwrap') return undefined;
  const escapes =
    launcher.kind === 'process-group'
      ? ` Processes they start with setsid or nohup can outlive the call, since no PID namespace can be made here (${launcher.reason}); the commands can also see the server's processes and read its environment (API keys) through /proc/<pid>/environ.`
      : '';
  const files = "the server's home with SSH keys and cloud credentials, its config and .env files";
  const reach =
    process.getuid?.() === 0
      ? `They run as root and can do anything on this machine: read and change every file (${files}), reach`
      : `They run as the server's user and can read and change every file it can (${files}) and reach`;
  if (!fallbackReason) {
    return `agent "${agent}" runs bash commands unsandboxed, as configured (sandbox.kind "none"). ${reach} the network and local services through their Unix sockets (/run, /tmp).${escapes} Remove sandbox.kind "none" to run them in bubblewrap.`;
  }
  return `agent "${agent}" can run bash commands unsandboxed: ${fallbackReason}. ${reach} the network and local services through their Unix sockets (/run, /tmp).${escapes} ${ENABLE}.`;
}
