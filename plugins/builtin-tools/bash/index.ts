/** The built-in `bash` tool. */
export { type BashInput, bashTool } from './bash-tool.ts';
export { checkSandbox } from './bwrap.ts';
export { probeLauncherSoon } from './launcher.ts';
export { DEFAULT_LIMITS, type ResourceLimits } from './limits.ts';
export {
  BASH_CONFIG_SCHEMA,
  type BashConfig,
  type BashOptions,
  SANDBOX_CONFIG_SCHEMA,
  type SandboxOptions,
} from './options.ts';
export type { BashResult } from './run-command.ts';
export { unsandboxedWarning } from './unsandboxed-warning.ts';
export { workspaceProblem } from './workspace-probe.ts';
