import type { CliIO } from '../io.ts';
import { type KernelFlags, loadKernel } from '../load-kernel.ts';

/** `hubos plugins`: the kernel's inspect view, plugins in apply order and the taps of each hook. */
export async function pluginsCommand(flags: KernelFlags & { json?: boolean }, io: CliIO): Promise<number> {
  const kernel = await loadKernel('plugins', flags, io);
  try {
    const view = kernel.inspect();
    if (flags.json) {
      io.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
      return 0;
    }
    io.stdout.write(`Plugins (${view.plugins.length}, in apply order):\n`);
    for (const plugin of view.plugins) {
      const facts = [
        plugin.enforce ? `enforce: ${plugin.enforce}` : '',
        plugin.dependencies.length ? `depends on: ${plugin.dependencies.join(', ')}` : '',
      ].filter(Boolean);
      const name = plugin.version ? `${plugin.name}@${plugin.version}` : plugin.name;
      io.stdout.write(`  ${name}${facts.length ? `  (${facts.join('; ')})` : ''}\n`);
    }
    io.stdout.write('\nHooks (taps in call order):\n');
    for (const [hook, taps] of Object.entries(view.hooks)) {
      const list = taps.map((tap) =>
        tap.plugin && tap.plugin !== tap.name ? `${tap.plugin}:${tap.name}` : tap.name,
      );
      io.stdout.write(`  ${hook}: ${list.length ? list.join(' -> ') : '-'}\n`);
    }
    return 0;
  } finally {
    await kernel.close();
  }
}
