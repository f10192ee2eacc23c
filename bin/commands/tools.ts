import type { Tool } from '../../core/index.ts';
import type { CliIO } from '../io.ts';
import { type KernelFlags, loadKernel } from '../load-kernel.ts';

/** `hubos tools`: each registered tool with its description and input schema. */
export async function toolsCommand(flags: KernelFlags & { json?: boolean }, io: CliIO): Promise<number> {
  const kernel = await loadKernel('tools', flags, io);
  try {
    const tools = kernel.registry.list();
    if (flags.json) {
      const data = tools.map(({ name, description, inputSchema, permissions }) => ({
        name,
        description,
        inputSchema,
        permissions: permissions ?? [],
      }));
      io.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
      return 0;
    }
    io.stdout.write(tools.length === 0 ? 'No tools registered.\n' : `${tools.length} tool(s):\n`);
    for (const tool of tools) io.stdout.write(`\n${describeTool(tool)}`);
    return 0;
  } finally {
    await kernel.close();
  }
}

function describeTool(tool: Tool): string {
  const lines = [
    `${tool.name}  ${tool.permissions?.length ? `[${tool.permissions.join(', ')}]` : ''}`.trimEnd(),
  ];
  lines.push(`  ${tool.description}`);
  const schema = tool.inputSchema as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length === 0) lines.push('  input: none');
  for (const [name, property] of properties) {
    const facts = [String(property.type ?? 'any'), schema.required?.includes(name) ? 'required' : 'optional'];
    if (property.enum)
      facts.push(`one of ${(property.enum as unknown[]).map((v) => JSON.stringify(v)).join('|')}`);
    if (property.default !== undefined) facts.push(`default ${JSON.stringify(property.default)}`);
    const about = typeof property.description === 'string' ? `: ${property.description}` : '';
    lines.push(`  - ${name} (${facts.join(', ')})${about}`);
  }
  return `${lines.join('\n')}\n`;
}
