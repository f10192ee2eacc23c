import { dirname, resolve } from 'node:path';
import type { KernelView, Plugin } from '../../core/index.ts';
import { HubosError } from '../../core/index.ts';
import {
  BASH_CONFIG_SCHEMA,
  type BashConfig,
  checkSandbox,
  probeLauncherSoon,
  SANDBOX_CONFIG_SCHEMA,
  type SandboxOptions,
  unsandboxedWarning,
  workspaceProblem,
} from './bash/index.ts';
import { FILESYSTEM_CONFIG_SCHEMA, type FilesystemOptions } from './filesystem/index.ts';
import { HTTP_CONFIG_SCHEMA, type HttpToolOptions } from './http/index.ts';
import { type BuiltinToolsOptions, builtinToolList, registerAll } from './register-all.ts';
import { WEBSEARCH_CONFIG_SCHEMA, type WebsearchOptions } from './websearch/index.ts';

export {
  type BashConfig,
  type BashInput,
  type BashOptions,
  type BashResult,
  bashTool,
  checkSandbox,
  type ResourceLimits,
  type SandboxOptions,
} from './bash/index.ts';
export { type FilesystemOptions, filesystemTools } from './filesystem/index.ts';
export { type DnsResolver, type HttpToolOptions, type HttpToolResult, httpTools } from './http/index.ts';
export {
  BUILTIN_TOOL_NAMES,
  type BuiltinToolsOptions,
  builtinToolList,
  registerAll,
} from './register-all.ts';
export {
  type WebsearchBackendName,
  type WebsearchHit,
  type WebsearchOptions,
  websearchTool,
} from './websearch/index.ts';

declare module 'hubos' {
  interface HubosConfig {
    /** Limits of the filesystem tools. */
    filesystem?: FilesystemOptions;
    /** The bash tool's sandbox (`{ kind: 'bwrap', network: false }`); unset: bubblewrap where it works. */
    sandbox?: SandboxOptions;
    /** The bash tool: `limits` on every command's processes, memory, CPU time and file size. */
    bash?: BashConfig;
    /** The HTTP tools: `allowHosts` lets internal hosts through; body and time caps. */
    http?: HttpToolOptions;
    /** The websearch backend (SearXNG, Brave or Tavily). */
    websearch?: WebsearchOptions;
  }
}

/** The folders of the config file and of the SQLite store: nothing a sandboxed command may read. */
function serverFolders(kernel: KernelView): string[] {
  const base = kernel.configFile ? dirname(kernel.configFile) : kernel.cwd;
  const store = kernel.config.store as { driver?: string; path?: string } | undefined;
  const folders = [base];
  if (store?.path && store.path !== ':memory:') folders.push(dirname(resolve(base, store.path)));
  return folders;
}

/**
 * The `builtin-tools` plugin: registers the eleven built-in tools with the options of the config
 * keys it owns (`filesystem`, `sandbox`, `bash`, `http`, `websearch`); factory options win. A configured
 * bwrap sandbox that cannot run fails startup; with none configured, bash runs in bubblewrap where
 * it works, else unsandboxed with a warning once an agent can call it.
 */
export default function builtinTools(options: BuiltinToolsOptions = {}): Plugin {
  return {
    name: 'builtin-tools',
    configSchema: {
      filesystem: FILESYSTEM_CONFIG_SCHEMA,
      sandbox: SANDBOX_CONFIG_SCHEMA,
      bash: BASH_CONFIG_SCHEMA,
      http: HTTP_CONFIG_SCHEMA,
      websearch: WEBSEARCH_CONFIG_SCHEMA,
    },
    apply(kernel) {
      const merged = (): BuiltinToolsOptions => {
        const { filesystem, sandbox, bash, http, websearch } = kernel.config;
        return {
          ...options,
          bash: {
            ...options.bash,
            limits: { ...bash?.limits, ...options.bash?.limits },
            // The config file's folder (its .env, inline keys) and the store's are the server's own.
            hide: [...(options.bash?.hide ?? []), ...serverFolders(kernel)],
          },
          filesystem: { ...filesystem, ...options.filesystem },
          ...((options.sandbox ?? sandbox) ? { sandbox: (options.sandbox ?? sandbox)! } : {}),
          http: { ...http, ...options.http },
          websearch: { ...websearch, ...options.websearch },
        };
      };
      // Unset, the sandbox is bubblewrap where it works; otherwise the operator hears it once, as
      // soon as an agent that may call bash exists.
      let warned = false;
      kernel.hooks.configResolved.tap('builtin-tools', () => {
        const { sandbox, bash } = merged();
        if (sandbox) checkSandbox({ ...bash, sandbox });
      });
      kernel.hooks.agentCreated.tap('builtin-tools', ({ agent }) => {
        if (warned) return;
        const live = kernel.getAgent(agent.id);
        const bash = live?.tools.find((tool) => tool.name === 'bash');
        if (!live || !bash || live.policy.decide(bash).decision === 'deny') return;
        const { sandbox, bash: bashOptions } = merged();
        const warning = unsandboxedWarning({ ...bashOptions, ...(sandbox ? { sandbox } : {}) }, agent.id);
        if (warning) kernel.logger.warn(warning);
        warned = true;
      });
      // bash's sandbox probes run while the kernel starts, not one after the other at registration.
      const probed = Promise.resolve()
        .then(() => {
          const { sandbox, bash } = merged();
          return probeLauncherSoon({ ...bash, ...(sandbox ? { sandbox } : {}) });
        })
        .catch(() => undefined);
      kernel.hooks.registerTools.tapPromise('builtin-tools', async (registry) => {
        await probed;
        const options = merged();
        // Where the workspace is matters too (folders above it the sandbox user cannot enter):
        // tried once now, so bash is never offered to fail on every call.
        const problem = await workspaceProblem(
          { ...options.bash, ...(options.sandbox ? { sandbox: options.sandbox } : {}) },
          kernel.sandbox.root,
        );
        if (problem && options.sandbox?.kind === 'bwrap') {
          throw new HubosError('CONFIG_INVALID', `sandbox.kind is "bwrap" but ${problem}`, {
            details: { key: 'sandbox', workspace: kernel.sandbox.root },
          });
        }
        if (problem) {
          kernel.logger.warn(`the bash tool is not registered: ${problem}`);
          registry.registerBatch(builtinToolList(options).filter((tool) => tool.name !== 'bash'));
          return;
        }
        registerAll(registry, options);
      });
    },
  };
}
