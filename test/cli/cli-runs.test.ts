// `hubos runs list|show`: the runs `hubos run` recorded in the config's store, read with no server.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summaryKey, summaryTable } from '../../core/context/summary-store.ts';
import { SqliteStore } from '../../core/store/sqlite.ts';
import { hubos, tempDir, writeFiles } from '../helpers/run.ts';

const CONFIG = `import { defineConfig, definePlugin, defineTool } from 'hubos';

const tools = definePlugin({
  name: 'test-tools',
  apply(kernel) {
    kernel.hooks.registerTools.tap('test-tools', (registry) => {
      registry.register(defineTool({
        name: 'echo', description: 'Echoes its text.',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        handler: (_ctx, { input }) => ({ echoed: input.text }),
      }));
    });
  },
});

export default defineConfig({
  plugins: [tools],
  store: { path: 'data/hubos.db' },
  agents: { helper: { description: 'test agent', tools: ['*'] }, other: { description: 'another' } },
});
`;
const OFFLINE = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', OPENAI_BASE_URL: '' };

describe('hubos runs', () => {
  it('lists the runs hubos run recorded, newest first and filtered, and shows one as a tree', async () => {
    const dir = await tempDir('hubos-runs-');
    await writeFiles(dir, { 'agent.config.ts': CONFIG });
    expect((await hubos(['runs', 'list'], dir, OFFLINE)).stdout).toBe('no runs\n');
    expect((await hubos(['run', 'helper', '/echo {"text":"first"}'], dir, OFFLINE)).code).toBe(0);
    expect((await hubos(['run', 'other', 'hello there'], dir, OFFLINE)).code).toBe(0);

    const listed = await hubos(['runs', 'list', '--json'], dir, OFFLINE);
    expect(listed.code, listed.stderr).toBe(0);
    const runs = JSON.parse(listed.stdout) as { id: string; agent: string; status: string; via: string }[];
    expect(runs.map((run) => [run.agent, run.status, run.via])).toEqual([
      ['other', 'completed', 'cli'],
      ['helper', 'completed', 'cli'],
    ]);
    const onlyHelper = await hubos(['runs', 'list', '--agent', 'helper'], dir, OFFLINE);
    expect(onlyHelper.stdout.trim().split('\n')).toHaveLength(1);
    expect(onlyHelper.stdout).toContain(runs[1]!.id);
    expect(onlyHelper.stdout).toContain('/echo {"text":"first"}');
    const searched = await hubos(['runs', 'list', '--q', 'HELLO'], dir, OFFLINE);
    expect(searched.stdout.trim().split('\n')).toHaveLength(1);
    expect(searched.stdout).toContain(runs[0]!.id);

    const shown = await hubos(['runs', 'show', runs[1]!.id], dir, OFFLINE);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^run ${runs[1]!.id} · helper · completed \\d+ ms`));
    expect(shown.stdout).toMatch(
      /\n├─ step 1 · \d+ ms · \d+ in \/ \d+ out · no price\n│ {2}└─ model offline · \d+ ms · /,
    );
    expect(shown.stdout).toMatch(/\n│ {5}└─ tool echo · \d+ ms\n└─ step 2 · /);
    expect(shown.stdout).toMatch(/\n {3}└─ model offline · \d+ ms · .* · stop\n/);
    expect(shown.stdout).toContain('answer: echo returned: {"echoed":"first"}');
    const json = JSON.parse((await hubos(['runs', 'show', runs[1]!.id, '--json'], dir, OFFLINE)).stdout);
    expect(json.steps.map((step: { kind: string }) => step.kind)).toEqual(['model', 'tool', 'model']);
  }, 60_000);

  it('shows tokens and cost per model call and for the run, and exports the run as JSON to stdout or a file', async () => {
    const dir = await tempDir('hubos-runs-');
    // The offline model priced by the config at $1 a prompt token and $2 an answer token.
    await writeFiles(dir, {
      'agent.config.ts': CONFIG.replace(
        "store: { path: 'data/hubos.db' },",
        "store: { path: 'data/hubos.db' }, pricing: { offline: { input: 1e6, output: 2e6 } },",
      ),
    });
    expect((await hubos(['run', 'helper', '/echo {"text":"priced"}'], dir, OFFLINE)).code).toBe(0);
    const id = (
      JSON.parse((await hubos(['runs', 'list', '--json'], dir, OFFLINE)).stdout) as { id: string }[]
    )[0]!.id;

    const exported = await hubos(['runs', 'export', id], dir, OFFLINE);
    expect(exported.code, exported.stderr).toBe(0);
    const doc = JSON.parse(exported.stdout);
    expect(doc.run).toMatchObject({ id, agent: 'helper', status: 'completed' });
    expect(doc.steps.map((step: { kind: string }) => step.kind)).toEqual(['model', 'tool', 'model']);
    const models = doc.steps.filter((step: { kind: string }) => step.kind === 'model');
    const input = models.reduce(
      (sum: number, step: { usage: { inputTokens: number } }) => sum + step.usage.inputTokens,
      0,
    );
    const output = models.reduce(
      (sum: number, step: { usage: { outputTokens: number } }) => sum + step.usage.outputTokens,
      0,
    );
    expect(input).toBeGreaterThan(0);
    expect(doc.totals).toEqual({
      inputTokens: input,
      outputTokens: output,
      cachedInputTokens: 0,
      cost: input + 2 * output,
    });

    const shown = await hubos(['runs', 'show', id], dir, OFFLINE);
    expect(shown.stdout).toContain(`· ${input} in / ${output} out tokens · $${input + 2 * output}\n`);
    const first = models[0].usage;
    expect(shown.stdout).toMatch(
      new RegExp(
        `│  └─ model offline · \\d+ ms · ${first.inputTokens} in / ${first.outputTokens} out · \\$${first.inputTokens + 2 * first.outputTokens} · tool-calls`,
      ),
    );

    const written = await hubos(['runs', 'export', id, '--out', 'run.json'], dir, OFFLINE);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toBe('');
    expect(written.stderr).toContain(`wrote run ${id} (3 steps) to ${join(dir, 'run.json')}`);
    expect(await readFile(join(dir, 'run.json'), 'utf8')).toBe(exported.stdout);

    const missing = await hubos(['runs', 'export', 'nope'], dir, OFFLINE);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no run "nope"');
    const noId = await hubos(['runs', 'export'], dir, OFFLINE);
    expect(noId.code).toBe(2);
    expect(noId.stderr).toContain('runs export: which run?');
    const outOnList = await hubos(['runs', 'list', '--out', 'x.json'], dir, OFFLINE);
    expect(outOnList.code).toBe(2);
    expect(outOnList.stderr).toContain('--out is for');
  }, 60_000);

  it('says what was wrong with a filter, a subcommand or an id', async () => {
    const dir = await tempDir('hubos-runs-');
    await writeFiles(dir, { 'agent.config.ts': CONFIG });
    const badStatus = await hubos(['runs', 'list', '--status', 'done'], dir, OFFLINE);
    expect(badStatus.code).toBe(1);
    expect(badStatus.stderr).toContain('status "done" is not one of queued, running');
    expect(badStatus.stderr).toContain('[RUN_QUERY_INVALID]');
    const badSub = await hubos(['runs', 'delete'], dir, OFFLINE);
    expect(badSub.code).toBe(2);
    expect(badSub.stderr).toContain('unknown subcommand "delete"');
    const missing = await hubos(['runs', 'show', 'nope'], dir, OFFLINE);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no run "nope"');
  }, 60_000);

  it('hubos prune applies runs.retention; --owner erases one principal; without either it says what to set', async () => {
    const dir = await tempDir('hubos-prune-');
    await writeFiles(dir, { 'agent.config.ts': CONFIG });
    for (const word of ['one', 'two', 'three'])
      expect((await hubos(['run', 'other', word], dir, OFFLINE)).code).toBe(0);
    const none = await hubos(['prune'], dir, OFFLINE);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('set runs.retention');
    await writeFiles(dir, {
      'agent.config.ts': CONFIG.replace(
        "store: { path: 'data/hubos.db' },",
        "store: { path: 'data/hubos.db' }, runs: { retention: { maxRuns: 1 } },",
      ),
    });
    const pruned = await hubos(['prune'], dir, OFFLINE);
    expect(pruned.stdout, pruned.stderr).toBe('pruned 2 ended run(s)\n');
    const left = JSON.parse((await hubos(['runs', 'list', '--json'], dir, OFFLINE)).stdout) as {
      input: string;
    }[];
    expect(left.map((run) => run.input)).toEqual(['three']);
    const erased = JSON.parse((await hubos(['prune', '--owner', 'local', '--json'], dir, OFFLINE)).stdout);
    expect(erased).toMatchObject({ owner: 'local', runs: 1, activeRuns: 0 });
    expect((await hubos(['runs', 'list'], dir, OFFLINE)).stdout).toBe('no runs\n');
  }, 60_000);

  it('hubos prune --owner erases the sessions of an agent no longer in the config', async () => {
    const dir = await tempDir('hubos-prune-owner-');
    await writeFiles(dir, { 'agent.config.ts': CONFIG });
    const ran = await hubos(['run', 'other', 'remember me', '--session', 's1'], dir, OFFLINE);
    expect(ran.code, ran.stderr).toBe(0);
    // The agent leaves the config; its session stays in the store until erased.
    await writeFiles(dir, {
      'agent.config.ts': CONFIG.replace(", other: { description: 'another' }", ''),
    });
    const erased = JSON.parse((await hubos(['prune', '--owner', 'local', '--json'], dir, OFFLINE)).stdout);
    expect(erased).toMatchObject({ owner: 'local', sessions: 1 });
    expect(erased.sessionMessages).toBeGreaterThanOrEqual(2);
    const again = JSON.parse((await hubos(['prune', '--owner', 'local', '--json'], dir, OFFLINE)).stdout);
    expect(again).toMatchObject({ sessions: 0, sessionMessages: 0 });
  }, 60_000);

  it('hubos prune applies sessions.retention to the summaries kept beside sessions too', async () => {
    const dir = await tempDir('hubos-prune-summaries-');
    await writeFiles(dir, {
      'agent.config.ts': CONFIG.replace(
        "store: { path: 'data/hubos.db' },",
        "store: { path: 'data/hubos.db' }, sessions: { retention: { maxAgeDays: 7 } },",
      ),
    });
    expect((await hubos(['run', 'other', 'hello', '--session', 's1'], dir, OFFLINE)).code).toBe(0);
    const summary = (updatedAt: number) => ({
      agent: 'other',
      sessionId: 's1',
      owner: 'local',
      summary: 'old facts',
      through: 1,
      anchor: 'a',
      model: 'offline',
      updatedAt,
    });
    const store = new SqliteStore(join(dir, 'data/hubos.db'));
    await summaryTable(store).put(summaryKey('other', 'old'), summary(Date.now() - 30 * 86_400_000));
    await summaryTable(store).put(summaryKey('other', 's1'), summary(Date.now()));
    await store.close();
    const pruned = await hubos(['prune', '--json'], dir, OFFLINE);
    expect(JSON.parse(pruned.stdout), pruned.stderr).toMatchObject({ sessions: 0, summaries: 1, vectors: 0 });
    const after = new SqliteStore(join(dir, 'data/hubos.db'));
    expect(await summaryTable(after).get(summaryKey('other', 'old'))).toBeUndefined();
    expect(await summaryTable(after).get(summaryKey('other', 's1'))).toBeDefined();
    await after.close();
  }, 60_000);
});
