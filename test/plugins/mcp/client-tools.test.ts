import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../../testing/index.ts';
import { bootMcp, fixtureServer } from './client-helpers.ts';

afterEach(() => {
  delete process.env.HUBOS_MCP_TEST_SECRET;
  delete process.env.HUBOS_MCP_TEST_NAMED;
});

describe('mcp client: a stdio server as a tool source', () => {
  it('registers its tools as <server>_<tool> with its schema, description, permission and metadata', async () => {
    const kernel = await bootMcp({ servers: { fx: fixtureServer() } });
    const names = kernel.registry.list().map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'fx_echo',
        'fx_fail',
        'fx_env',
        'fx_pid',
        'fx_crash',
        'fx_structured',
        'fx_add_tool',
      ]),
    );
    const echo = kernel.registry.get('fx_echo');
    expect(echo.description).toBe('Echoes its text back.');
    expect(echo.inputSchema).toEqual({
      type: 'object',
      properties: { text: { type: 'string', description: 'What to echo' } },
      required: ['text'],
    });
    expect(echo.permissions).toEqual(['mcp:fx']);
    expect(echo.metadata).toEqual({ mcp: { server: 'fx', tool: 'echo' } });
    // The schema is the one input is checked against, before anything reaches the server.
    expect(kernel.registry.checkInput('fx_echo', { text: 3 }).ok).toBe(false);
    const [status] = kernel.service('mcp').clients.list();
    expect(status).toMatchObject({ name: 'fx', transport: 'stdio', state: 'ready', attempts: 0 });
    expect(status!.server).toEqual({ name: 'fixture', version: '1.0.0' });
    expect(status!.tools).toContainEqual({
      name: 'fx_echo',
      tool: 'echo',
      description: 'Echoes its text back.',
    });
  });

  it('uses the configured prefix, and none when it is ""', async () => {
    const kernel = await bootMcp({
      servers: { one: fixtureServer([], { prefix: 'gh' }), two: fixtureServer([], { prefix: '' }) },
    });
    expect(kernel.registry.has('gh_echo')).toBe(true);
    expect(kernel.registry.has('echo')).toBe(true);
    expect(kernel.registry.has('one_echo')).toBe(false);
  });

  it('runs calls through an agent: text back to the model, isError as an error result', async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'fx_echo', input: { text: 'hello' } },
          { name: 'fx_fail', input: {} },
        ],
      },
      { toolCalls: [{ name: 'fx_structured', input: { n: 21 } }] },
      'done',
    ]);
    const kernel = await bootMcp(
      { servers: { fx: fixtureServer() } },
      { config: { agents: { dev: { model, tools: ['fx_echo', 'fx_fail', 'fx_structured'] } } } },
    );
    const result = await kernel.agent('dev').run('go');
    expect(result.status).toBe('completed');
    const [echo, fail, structured] = result.toolCalls;
    expect(echo).toMatchObject({ ok: true, output: 'hello' });
    expect(fail).toMatchObject({ ok: false, error: { code: 'TOOL_FAILED' } });
    expect(fail!.error!.message).toContain('the fail tool failed on purpose');
    expect(structured).toMatchObject({
      ok: true,
      output: { text: 'doubled: 42', structuredContent: { doubled: 42 } },
    });
    const toolMessages = model.requests[1]!.messages.filter((message) => message.role === 'tool');
    expect(toolMessages).toMatchObject([
      { name: 'fx_echo', content: 'hello' },
      { name: 'fx_fail', isError: true },
    ]);
    expect(toolMessages[1]!.content).toContain('the fail tool failed on purpose');
  });

  it('is governed by the permission policy through mcp:<server>', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'fx_echo', input: { text: 'x' } }] }, 'ok']);
    const kernel = await bootMcp(
      { servers: { fx: fixtureServer() } },
      {
        config: {
          permissions: { deny: ['mcp:fx'] },
          agents: { dev: { model, tools: ['fx_*'] } },
        },
      },
    );
    const result = await kernel.agent('dev').run('go');
    expect(result.toolCalls[0]).toMatchObject({ ok: false, error: { code: 'TOOL_DENIED' } });
    expect(result.toolCalls[0]!.error!.message).toContain('mcp:fx');
  });

  it('gives a stdio server only the basics and the variables its env names', async () => {
    process.env.HUBOS_MCP_TEST_SECRET = 'do-not-leak';
    process.env.HUBOS_MCP_TEST_NAMED = 'named-value';
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'plain_env' }, { name: 'listed_env' }, { name: 'given_env' }] },
      'done',
    ]);
    const kernel = await bootMcp(
      {
        servers: {
          plain: fixtureServer(),
          listed: fixtureServer([], { env: ['HUBOS_MCP_TEST_NAMED', 'HUBOS_MCP_TEST_ABSENT'] }),
          given: fixtureServer([], { env: { TOKEN: 'set-in-config' } }),
        },
      },
      { config: { agents: { dev: { model, tools: ['*_env'] } } } },
    );
    const result = await kernel.agent('dev').run('go');
    const [plain, listed, given] = result.toolCalls.map(
      (call) => JSON.parse(call.output as string) as Record<string, string>,
    );
    for (const env of [plain, listed, given]) {
      expect(env).not.toHaveProperty('HUBOS_MCP_TEST_SECRET');
      expect(env!.PATH).toBe(process.env.PATH);
    }
    expect(plain).not.toHaveProperty('HUBOS_MCP_TEST_NAMED');
    expect(listed!.HUBOS_MCP_TEST_NAMED).toBe('named-value');
    expect(listed).not.toHaveProperty('HUBOS_MCP_TEST_ABSENT');
    expect(given!.TOKEN).toBe('set-in-config');
    expect(given).not.toHaveProperty('HUBOS_MCP_TEST_NAMED');
  });

  it('does not start a disabled server, and lets agents name its tools', async () => {
    const model = new ScriptedModel();
    const kernel = await bootMcp(
      { servers: { off: fixtureServer([], { enabled: false }) } },
      { config: { agents: { dev: { model, tools: ['off_*'] } } } },
    );
    expect(kernel.service('mcp').clients.list()[0]).toMatchObject({ state: 'stopped', tools: [] });
    expect(kernel.service('mcp').clients.degraded).toBe(false);
    expect(kernel.agent('dev').tools).toEqual([]);
  });
});
