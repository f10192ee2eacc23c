import { referenceProblems } from '../config-references.ts';
import type { CliIO } from '../io.ts';
import { type KernelFlags, loadKernel } from '../load-kernel.ts';

/**
 * `hubos validate`: boots the config for real (plugins applied, schema checked), then checks that
 * what it names exists (workflow steps' agents, tools and teams, `mcp.serve`, permission rules).
 * Exit 0 when valid, 1 with every problem found.
 */
export async function validateCommand(flags: KernelFlags, io: CliIO): Promise<number> {
  const kernel = await loadKernel('validate', flags, io);
  let problems: string[];
  try {
    problems = referenceProblems(kernel);
  } finally {
    await kernel.close();
  }
  const where = kernel.configFile ?? 'the built-in defaults';
  if (problems.length > 0) {
    io.stderr.write(
      `✗ ${where} names what does not exist (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.map((problem) => `  - ${problem}\n`).join('')}`,
    );
    return 1;
  }
  const plugins = kernel.plugins.length;
  const tools = kernel.registry.list().length;
  io.stdout.write(`✓ ${where} is valid: ${plugins} plugin(s), ${tools} tool(s)\n`);
  return 0;
}
