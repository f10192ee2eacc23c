import { describe, expect, it } from 'vitest';
import { Registry } from '../../../core/index.ts';
import builtinTools, { BUILTIN_TOOL_NAMES, registerAll } from '../../../plugins/builtin-tools/index.ts';
import { bootKernel } from '../../../testing/index.ts';

// Spelled out here (not imported) so the test fails if the list changes.
const NAMES = [
  'filesystem_read',
  'filesystem_write',
  'filesystem_list',
  'filesystem_delete',
  'filesystem_search',
  'bash',
  'http_get',
  'http_post',
  'http_put',
  'http_delete',
  'websearch',
];

it('BUILTIN_TOOL_NAMES lists them', () => expect(BUILTIN_TOOL_NAMES).toEqual(NAMES));

describe('builtin-tools', () => {
  it('registerAll registers exactly the eleven built-in tools, each with its permissions', () => {
    const registry = new Registry();
    registerAll(registry);
    expect(registry.list().map((tool) => tool.name)).toEqual(NAMES);
    const permissions = Object.fromEntries(registry.list().map((tool) => [tool.name, tool.permissions]));
    expect(permissions).toMatchObject({
      filesystem_read: ['fs:read'],
      filesystem_write: ['fs:write'],
      filesystem_delete: ['fs:delete'],
      bash: ['shell:exec'],
      http_post: ['net:http'],
      websearch: ['net:search'],
    });
    expect(() => registerAll(registry)).toThrow('already registered');
  });

  it('the plugin registers them with the options of its config keys', async () => {
    const kernel = await bootKernel({
      plugins: [builtinTools()],
      config: { filesystem: { maxSearchResults: 7 }, http: { allowHosts: ['127.0.0.1'] } },
    });
    expect(kernel.registry.list().map((tool) => tool.name)).toEqual(NAMES);
    const search = kernel.registry.get('filesystem_search').inputSchema as {
      properties: { max_results: { maximum: number } };
    };
    expect(search.properties.max_results.maximum).toBe(7);
    await kernel.close();
  });

  it('rejects unknown keys in its config', async () => {
    await expect(
      bootKernel({ plugins: [builtinTools()], config: { http: { allowHost: [] } } as never }),
    ).rejects.toThrow('unknown property "http.allowHost"');
  });

  it('fails startup when the configured bwrap sandbox cannot run, saying how to install it', async () => {
    const boot = bootKernel({
      plugins: [builtinTools()],
      config: { sandbox: { kind: 'bwrap', bwrapPath: '/nonexistent/bwrap' } as never },
    });
    await expect(boot).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    await expect(boot).rejects.toThrow('apt-get install bubblewrap');
  });
});
