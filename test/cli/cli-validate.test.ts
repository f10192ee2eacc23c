/**
 * `hubos validate` refuses a config that names agents, tools, teams or permissions that do not
 * exist, listing every problem with the name a typo most likely meant. Real `hubos` processes.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hubos, tempDir, writeFiles } from '../helpers/run.ts';

const BUILT_IN_TOOLS =
  'filesystem_read, filesystem_write, filesystem_list, filesystem_delete, filesystem_search, bash, http_get, http_post, http_put, http_delete, websearch';

async function validate(config: string) {
  const dir = await tempDir('hubos-validate-');
  await writeFiles(dir, { 'agent.config.mjs': config });
  return { file: join(dir, 'agent.config.mjs'), result: await hubos(['validate'], dir) };
}

describe('hubos validate: what the config names exists', () => {
  it('lists every missing agent, tool, team and rule of workflows, mcp.serve and permissions; exit 1', async () => {
    const { file, result } = await validate(`import { defineWorkflow } from 'hubos/plugins';
export default {
  store: { path: 'data/hubos.db' },
  agents: { assistant: { tools: ['filesystem_read'], permissions: { deny: ['bsh'] } }, writer: {} },
  permissions: { ask: ['net:*'], deny: ['fs:wrte'] },
  stars: { crew: { members: [{ agent: 'assistant', role: 'leader' }, { agent: 'writer', role: 'worker' }] } },
  mcp: { serve: { tools: ['nope_*', 'filesystem_reed', 'http_*'], agents: ['asistant', 'ghost', 'writer'] } },
  workflows: [
    defineWorkflow({
      name: 'publish',
      steps: [
        { id: 'draft', kind: 'agent', agent: 'wrtier', input: 'x' },
        { id: 'read', kind: 'tool', tool: 'filesystem_reed', input: {} },
        { id: 'review', kind: 'stars', team: 'krew', task: 'x' },
        { id: 'both', kind: 'parallel', steps: [
          { id: 'member', kind: 'agent', agent: 'crew-writer', input: 'x' },
          { id: 'fetch', kind: 'tool', tool: 'http_get', input: { url: 'https://example.com' } },
          { id: 'nested', kind: 'agent', agent: 'nobody', input: 'x' },
        ] },
      ],
    }),
  ],
};
`);
    expect(result.stdout).toBe('');
    expect(result.code).toBe(1);
    const report = result.stderr.slice(result.stderr.indexOf('✗'));
    expect(report).toBe(
      `✗ ${file} names what does not exist (10 problems):
  - workflow "publish" step "draft": no agent "wrtier" (did you mean "writer"?)
  - workflow "publish" step "read": no tool "filesystem_reed" (did you mean "filesystem_read"?)
  - workflow "publish" step "review": no Stars team "krew" (did you mean "crew"?)
  - workflow "publish" step "nested": no agent "nobody" (agents: assistant, writer, crew-assistant, crew-writer)
  - mcp.serve.tools: no registered tool matches "nope_*" (tools: ${BUILT_IN_TOOLS})
  - mcp.serve.tools: no tool "filesystem_reed" (did you mean "filesystem_read"?)
  - mcp.serve.agents: no agent "asistant" (did you mean "assistant"?)
  - mcp.serve.agents: no agent "ghost" (agents: assistant, writer, crew-assistant, crew-writer)
  - permissions.deny: "fs:wrte" matches no tool and no permission (did you mean "fs:write"?)
  - agents.assistant.permissions.deny: "bsh" matches no tool and no permission (did you mean "bash"?)
`,
    );
  });

  it('a workflow step naming a team when the config has none says so', async () => {
    const { file, result } = await validate(`import { defineWorkflow } from 'hubos/plugins';
export default {
  store: { path: 'data/hubos.db' },
  workflows: [defineWorkflow({ name: 'w', steps: [{ id: 'team', kind: 'stars', team: 'crew', task: 'x' }] })],
};
`);
    expect(result.code).toBe(1);
    expect(result.stderr.slice(result.stderr.indexOf('✗'))).toBe(
      `✗ ${file} names what does not exist (1 problem):\n  - workflow "w" step "team": no Stars team "crew" (Stars teams: none)\n`,
    );
  });

  it('names that boot itself refuses get the closest name too', async () => {
    const cases: [string, string][] = [
      [
        "export default { agents: { assistant: { tools: ['filesystem_raed'] } } };\n",
        `✗ agent "assistant": no registered tool matches "filesystem_raed" (did you mean "filesystem_read"?) (registered: ${BUILT_IN_TOOLS}) [AGENT_INVALID]\n`,
      ],
      [
        "export default { agents: { assistant: {} }, stars: { crew: { members: [{ agent: 'asistant', role: 'leader' }] } } };\n",
        '✗ plugin "stars" failed in hook "ready": no agent template "asistant" (did you mean "assistant"?) (templates: assistant) [TEMPLATE_NOT_FOUND]\n',
      ],
      [
        "export default { agents: { assistant: {} }, subagents: { researcher: { description: 'r', tools: ['websearh'] } } };\n",
        `✗ plugin "subagent" failed in hook "ready": sub-agent type "researcher": no registered tool matches "websearh" (did you mean "websearch"?) (registered: ${BUILT_IN_TOOLS}, task) [AGENT_INVALID]\n`,
      ],
      [
        "export default { agents: { assistant: { model: 'opneai:gpt-4.1-mini' } } };\n",
        '✗ agent "assistant": model "opneai:gpt-4.1-mini": no model provider "opneai" (did you mean "openai"?) (registered: openai, anthropic, offline) [MODEL_NOT_FOUND]\n',
      ],
    ];
    const results = await Promise.all(cases.map(([config]) => validate(config)));
    for (const [i, [, message]] of cases.entries()) {
      expect(results[i]!.result).toEqual({ code: 1, stdout: '', stderr: message });
    }
  });

  it('a config whose names all exist is valid, exit 0', async () => {
    const { file, result } = await validate(`import { defineWorkflow } from 'hubos/plugins';
export default {
  store: { path: 'data/hubos.db' },
  agents: { assistant: { tools: ['filesystem_*'] } },
  permissions: { ask: ['net:*', 'bash'], deny: ['fs:write'] },
  mcp: { serve: { tools: ['filesystem_*'], agents: ['assistant'] } },
  workflows: [defineWorkflow({ name: 'w', steps: [{ id: 'a', kind: 'agent', agent: 'assistant', input: 'x' }] })],
};
`);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(
        `^✓ ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is valid: \\d+ plugin\\(s\\), 11 tool\\(s\\)\\n$`,
      ),
    );
  });

  it('hubos run with a mistyped agent names the closest one', async () => {
    const dir = await tempDir('hubos-validate-');
    await writeFiles(dir, { 'agent.config.mjs': 'export default { agents: { assistant: {} } };\n' });
    const result = await hubos(['run', 'asistant', 'hello'], dir);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        '✗ no agent named "asistant" (did you mean "assistant"?) (agents: assistant) [AGENT_NOT_FOUND]\n',
    });
  });
});
