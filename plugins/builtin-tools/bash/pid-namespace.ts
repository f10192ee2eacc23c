import { existsSync } from 'node:fs';
import { initCommand } from './ns-init.ts';
import { type ProbeRun, runProbeCommand, runProbeCommandAsync } from './probe-run.ts';

/** Where util-linux puts `unshare`. */
const UNSHARE_PATHS = ['/usr/bin/unshare', '/bin/unshare'];

/**
 * How an unsandboxed command is still contained: a PID namespace of its own (util-linux
 * `unshare`), so when its init exits the kernel kills every process it started — `setsid`, `nohup`
 * and double forks included — before the call returns. A fresh /proc hides the server's processes
 * (and their environment). As another user than root this needs a user namespace too, mapping the
 * user to itself.
 */
export interface PidNamespace {
  unshare: string;
  args: string[];
}

export type PidNamespaceProbe = { ok: true; namespace: PidNamespace } | { ok: false; reason: string };

let probed: PidNamespaceProbe | undefined;
let probing: Promise<PidNamespaceProbe> | undefined;

/** Tries the namespace once per process with a real `true`. */
export function probePidNamespace(): PidNamespaceProbe {
  if (!probed) {
    const plan = probePlan();
    probed = 'answer' in plan ? plan.answer : plan.interpret(runProbeCommand(plan.file, plan.args));
  }
  return probed;
}

/** The same probe in the background; `probePidNamespace` answers from it once it is done. */
export function probePidNamespaceSoon(): Promise<PidNamespaceProbe> {
  if (probed) return Promise.resolve(probed);
  probing ??= (async () => {
    const plan = probePlan();
    const probe =
      'answer' in plan ? plan.answer : plan.interpret(await runProbeCommandAsync(plan.file, plan.args));
    probed ??= probe;
    return probed;
  })();
  return probing;
}

type ProbePlan =
  | { answer: PidNamespaceProbe }
  | { file: string; args: string[]; interpret: (run: ProbeRun) => PidNamespaceProbe };

/** The probe's command and how to read its end, or the answer when there is nothing to run. */
function probePlan(): ProbePlan {
  const unshare = UNSHARE_PATHS.find((path) => existsSync(path));
  if (!unshare) return { answer: { ok: false, reason: 'util-linux "unshare" is not installed' } };
  const user = process.getuid?.() === 0 ? [] : ['--user', '--map-current-user'];
  const args = [...user, '--pid', '--fork', '--kill-child', '--mount-proc', '--'];
  return {
    file: unshare,
    args: [...args, ...initCommand('/bin/true', '')],
    interpret(run) {
      if (run.exitCode === 0) return { ok: true, namespace: { unshare, args } };
      if (run.code) return { ok: false, reason: `${unshare} cannot run (${run.code})` };
      const why = String(run.stderr ?? '').trim() || run.message;
      return { ok: false, reason: `${unshare} cannot create a PID namespace here: ${why}` };
    },
  };
}
