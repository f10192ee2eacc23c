import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_TOOL_NAMES } from '../../plugins/builtin-tools/index.ts';
import { hubos, projectWithClockPlugin, ROOT, tempDir, writeFiles } from '../helpers/run.ts';

/** What the hubos command registers before a config's own tools. */
const BUILTIN_TOOLS = BUILTIN_TOOL_NAMES;

const CLOCK_CONFIG = `import { defineConfig } from 'hubos';
export default defineConfig({ plugins: [['hubos-plugin-clock', { timezone: 'Asia/Tokyo' }]] });
`;

describe('hubos tools / plugins / validate', () => {
  it("lists the repo's own config: its local and packaged tool plugins", async () => {
    const result = await hubos(['tools'], ROOT);
    expect(result.code).toBe(0);
    for (const name of ['notes_add', 'notes_list', 'clock_now', 'clock_convert'])
      expect(result.stdout).toContain(name);
    expect(result.stdout).toContain('- title (string, required)');
    expect(result.stdout).toContain('default "Europe/Paris"');
  });

  it('prints tools as JSON with their input schemas', async () => {
    const result = await hubos(['tools', '--json'], ROOT);
    expect(result.code).toBe(0);
    const tools = JSON.parse(result.stdout) as { name: string; inputSchema: { required?: string[] } }[];
    const add = tools.find((tool) => tool.name === 'notes_add');
    expect(add?.inputSchema.required).toEqual(['title', 'text']);
    expect(tools.map((tool) => tool.name)).toEqual([
      ...BUILTIN_TOOLS,
      'task',
      'text_count',
      'text_slugify',
      'memory_update',
      'memory_recall',
      'notes_add',
      'notes_list',
      'notes_find',
      'notes_show',
      'notes_forget',
      'clock_now',
      'clock_convert',
    ]);
  });

  it('loads a plugin package by name, found from a nested working folder upwards', async () => {
    const project = await projectWithClockPlugin(CLOCK_CONFIG);
    const nested = join(project, 'src/deep/er');
    await mkdir(nested, { recursive: true });
    const result = await hubos(['tools', '--json'], nested);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const tools = JSON.parse(result.stdout) as {
      name: string;
      inputSchema: { properties: { timezone?: { default?: string } } };
    }[];
    expect(tools.map((tool) => tool.name)).toEqual([...BUILTIN_TOOLS, 'clock_now', 'clock_convert']);
    expect(tools.find((tool) => tool.name === 'clock_now')?.inputSchema.properties.timezone?.default).toBe(
      'Asia/Tokyo',
    );
  });

  it('takes --config explicitly, and says clearly when that file is missing', async () => {
    const project = await projectWithClockPlugin(CLOCK_CONFIG);
    await writeFiles(project, { 'configs/other.config.mjs': 'export default { plugins: [] };\n' });
    const other = await hubos(['validate', '--config', 'configs/other.config.mjs'], project);
    expect(other.code).toBe(0);
    expect(other.stdout).toContain('other.config.mjs is valid: 6 plugin(s), 11 tool(s)');
    const missing = await hubos(['validate', '--config', 'nope.config.ts'], project);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`config file not found: ${join(project, 'nope.config.ts')}`);
  });

  it('validate: exit 0 for a valid config', async () => {
    const result = await hubos(['validate'], ROOT);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${join(ROOT, 'agent.config.ts')} is valid: 15 plugin(s), 23 tool(s)`);
  });

  it('validate: exit 1 naming the key path, the expectation and the file', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'agent.config.mjs': 'export default { plugin: [], plugins: {} };\n' });
    const result = await hubos(['validate'], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(join(dir, 'agent.config.mjs'));
    expect(result.stderr).toContain('unknown key "plugin" (did you mean "plugins"?)');
    expect(result.stderr).toContain('"plugins" must be array, got an object');
    expect(result.stderr).toContain('[CONFIG_INVALID]');
  });

  it('validate: exit 1 naming a plugin package that is not installed', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'agent.config.mjs': "export default { plugins: ['hubos-plugin-missing'] };\n" });
    const result = await hubos(['validate'], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('plugin "hubos-plugin-missing" cannot be resolved');
    expect(result.stderr).toContain('npm install hubos-plugin-missing');
  });

  it('validate: exit 1 naming the plugin whose options are bad', async () => {
    const project = await projectWithClockPlugin(
      "export default { plugins: [['hubos-plugin-clock', { timezone: 'Mars/Olympus' }]] };\n",
    );
    const result = await hubos(['validate'], project);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'plugin "hubos-plugin-clock": its factory threw: unknown time zone "Mars/Olympus"',
    );
  });

  it('plugins: lists plugins in apply order and the taps of each hook', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'agent.config.mjs': `
const tapper = (name, extra = {}) => ({ name, ...extra, apply(k) { k.hooks.registerTools.tap(name, () => {}); k.hooks.ready.tap(name, () => {}); } });
export default { plugins: [tapper('b', { dependencies: ['a'] }), tapper('a'), tapper('z', { enforce: 'pre', version: '2.0.0' })] };
`,
    });
    const text = await hubos(['plugins'], dir);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      'Plugins (9, in apply order):\n  z@2.0.0  (enforce: pre)\n  builtin-tools\n  openai\n  anthropic\n  offline\n  hubos\n  a\n  b  (depends on: a)\n  default-model  (enforce: post)\n',
    );
    expect(text.stdout).toContain('registerTools: z -> builtin-tools -> a -> b');
    expect(text.stdout).toContain('registerModels: openai -> anthropic -> offline');
    expect(text.stdout).toContain('config: default-model');
    expect(text.stdout).toContain('ready: z -> hubos -> a -> b');
    const json = await hubos(['plugins', '--json'], dir);
    const view = JSON.parse(json.stdout) as {
      plugins: { name: string }[];
      hooks: Record<string, { plugin: string }[]>;
    };
    expect(view.plugins.map((p) => p.name)).toEqual([
      'z',
      'builtin-tools',
      'openai',
      'anthropic',
      'offline',
      'hubos',
      'a',
      'b',
      'default-model',
    ]);
    expect(view.hooks.registerTools?.map((tap) => tap.plugin)).toEqual(['z', 'builtin-tools', 'a', 'b']);
    expect(view.hooks.close).toEqual([]);
  });

  it('passes --mode and the command to a config function', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'agent.config.ts': `import { defineConfig } from 'hubos';
export default defineConfig(({ mode, command }) => {
  if (mode !== 'staging' || command !== 'validate') throw new Error(\`unexpected \${mode}/\${command}\`);
  return { plugins: [] };
});
`,
    });
    expect((await hubos(['validate', '--mode', 'staging'], dir)).code).toBe(0);
    const wrong = await hubos(['validate', '--mode', 'production'], dir);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('unexpected production/validate');
  });
});
