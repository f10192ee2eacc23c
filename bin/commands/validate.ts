import type { CliIO } from '../io.ts';
import { type KernelFlags, loadKernel } from '../load-kernel.ts';

/** `hubos validate`: boots the config for real (plugins applied, schema checked), then closes. */
export async function validateCommand(flags: KernelFlags, io: CliIO): Promise<number> {
  const kernel = await loadKernel('validate', flags, io);
  await kernel.close();
  const where = kernel.configFile ?? 'the built-in defaults';
  const plugins = kernel.plugins.length;
  const tools = kernel.registry.list().length;
  io.stdout.write(`✓ ${where} is valid: ${plugins} plugin(s), ${tools} tool(s)\n`);
  return 0;
}
