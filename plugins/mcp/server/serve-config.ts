import { KERNEL_OF, type KernelView } from '../../../core/index.ts';
import type { McpConfig, McpServeConfig } from '../config.ts';

const configs = new WeakMap<object, () => McpConfig>();

/** Keeps the mcp plugin's merged config (its options over the config key) for `hubos mcp`. */
export function rememberServeConfig(kernel: KernelView, config: () => McpConfig): void {
  configs.set(kernel[KERNEL_OF], config);
}

/**
 * What to serve over stdio: the mcp plugin's `serve` (options over config), else the config's
 * `mcp.serve`. `serve: false` only turns the HTTP endpoint off, so it serves the defaults here.
 */
export function serveConfigOf(kernel: Pick<KernelView, 'config' | typeof KERNEL_OF>): McpServeConfig {
  const serve = configs.get(kernel[KERNEL_OF])?.().serve ?? kernel.config.mcp?.serve;
  return serve || {};
}
