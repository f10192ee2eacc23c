import { execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EvaluateResult } from '../../core/index.ts';
import { HUBOS_BIN, hubos, tempDir, writeFiles } from '../helpers/run.ts';
import { type FakeServer, startServer } from '../plugins/models/server.ts';

// An agent on a ScriptedModel: asked "the capital of LandN", it calls `capital` and answers
// "The capital of LandN is CityN." — except for the lands EVAL_WRONG names, which it gets wrong.
const CONFIG = `import { defineConfig, defineTool, type ModelRequest } from 'hubos';
import { ScriptedModel } from 'hubos/testing';

const wrong = (process.env.EVAL_WRONG ?? '').split(',').filter(Boolean);
const model = {
  provider: 'scripted',
  modelId: 'geo',
  stream(request: ModelRequest) {
    const last = request.messages[request.messages.length - 1];
    const asked = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const land = /capital of (\\w+)/.exec(asked)?.[1] ?? '?';
    const delayMs = Number(process.env.EVAL_DELAY_MS ?? 0);
    const step = last?.role === 'tool'
      ? { delayMs, text: wrong.includes(land) ? 'I am not sure.' : \`The capital of \${land} is \${JSON.parse(last.content).capital}.\` }
      : { delayMs, toolCalls: [{ name: 'capital', input: { land } }] };
    return new ScriptedModel([step], { modelId: 'geo' }).stream(request);
  },
};

export default defineConfig({
  plugins: [{
    name: 'geo',
    apply(kernel) {
      kernel.hooks.registerTools.tap('geo', (registry) => registry.register(defineTool({
        name: 'capital', description: "A land's capital.",
        inputSchema: { type: 'object', properties: { land: { type: 'string' } }, required: ['land'] },
        handler: (_ctx, { input }) => ({ capital: input.land.replace('Land', 'City') }),
      })));
    },
  }],
  store: { path: 'data/hubos.db' },
  agents: { geo: { model, tools: ['capital'] } },
  ...(process.env.JUDGE_URL ? { evals: { judge: 'openai:judge-1' } } : {}),
});
`;

const CASES = Array.from({ length: 50 }, (_, i) =>
  JSON.stringify({
    id: `land-${i + 1}`,
    input: `What is the capital of Land${i + 1}?`,
    expected: {
      contains: `City${i + 1}`,
      tools: { calls: [{ name: 'capital', input: { land: `Land${i + 1}` } }] },
    },
  }),
).join('\n');

const QUIET = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', OPENAI_BASE_URL: '' };

async function project(): Promise<string> {
  const dir = await tempDir('hubos-eval-');
  await writeFiles(dir, { 'agent.config.ts': CONFIG, 'evals/geo.jsonl': `${CASES}\n` });
  return dir;
}

/** Parses XML with a real parser (Python's expat) and returns its testsuites as JSON. */
function parseJunit(file: string): Promise<{
  tests: number;
  failures: number;
  errors: number;
  suites: { name: string; tests: number; failures: number; cases: number; failed: string[] }[];
}> {
  const script = `
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == 'testsuites', root.tag
print(json.dumps({
  'tests': int(root.get('tests')), 'failures': int(root.get('failures')), 'errors': int(root.get('errors')),
  'suites': [{
    'name': s.get('name'), 'tests': int(s.get('tests')), 'failures': int(s.get('failures')),
    'cases': len(s.findall('testcase')),
    'failed': [c.get('name') for c in s.findall('testcase') if c.find('failure') is not None],
  } for s in root.findall('testsuite')],
}))`;
  return new Promise((resolve, reject) =>
    execFile('python3', ['-c', script, file], (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
    ),
  );
}

const WRONG = [
  'Land3',
  'Land9',
  'Land14',
  'Land20',
  'Land27',
  'Land33',
  'Land38',
  'Land41',
  'Land45',
  'Land50',
];

describe('hubos eval', () => {
  it('runs 50 cases: the table, the JSON and JUnit reports, exit 0; then a worse run fails its threshold and is flagged against the baseline', async () => {
    const dir = await project();
    const pass = await hubos(
      [
        'eval',
        'evals/geo.jsonl',
        '--threshold',
        'contains=0.9',
        '--reporter',
        'json=out/pass.json',
        '--reporter',
        'junit=out/pass.xml',
      ],
      dir,
      QUIET,
    );
    expect(pass.stderr).toContain('eval: 50 cases of geo (sha256:');
    expect(pass.code).toBe(0);
    // Not a terminal: a progress line per tenth.
    expect(pass.stderr.match(/^eval: \d+\/50 cases \(\d+%\)$/gm)).toHaveLength(10);
    expect(pass.stderr).toContain('eval: 50/50 cases (100%)');
    const lines = pass.stdout.split('\n');
    expect(lines[0]).toMatch(/^case\s+status\s+contains\s+trajectory$/);
    expect(lines.filter((line) => /^land-\d+\s+completed\s+1\.00\s+1\.00$/.test(line))).toHaveLength(50);
    expect(pass.stdout).toMatch(/^mean\s+1\.00\s+1\.00$/m);
    expect(pass.stdout).toMatch(/^threshold\s+0\.90 ✓\s+–$/m);
    expect(pass.stdout).toMatch(/experiment [0-9a-f-]{36} · 50 cases · 0 failed · [\d.]+ s · passed/);
    const report = JSON.parse(await readFile(join(dir, 'out/pass.json'), 'utf8')) as EvaluateResult;
    expect(report.cases).toHaveLength(50);
    expect(report.experiment).toMatchObject({ status: 'completed', agent: 'geo', owner: 'local' });
    expect(report.summary).toMatchObject({
      cases: 50,
      failed: 0,
      passed: true,
      scorers: {
        contains: { mean: 1, cases: 50, threshold: 0.9, passed: true },
        trajectory: { mean: 1, cases: 50 },
      },
    });
    const junit = await parseJunit(join(dir, 'out/pass.xml'));
    expect(junit).toMatchObject({ tests: 100, failures: 0, errors: 0 });
    expect(junit.suites.map((suite) => [suite.name, suite.cases])).toEqual([
      ['contains', 50],
      ['trajectory', 50],
    ]);
    // The runs are the store's, via eval: `hubos runs list` finds them.
    const runs = await hubos(['runs', 'list', '--via', 'eval', '--limit', '100', '--json'], dir, QUIET);
    expect(JSON.parse(runs.stdout)).toHaveLength(50);

    const fail = await hubos(
      [
        'eval',
        'evals/geo.jsonl',
        '--threshold',
        'contains=0.9',
        '--baseline',
        'latest',
        '--concurrency',
        '7',
        '--reporter',
        'json=out/fail.json',
        '--reporter',
        'junit=out/fail.xml',
      ],
      dir,
      { ...QUIET, EVAL_WRONG: WRONG.join(',') },
    );
    expect(fail.code).toBe(1);
    expect(fail.stdout).toMatch(/^land-3\s+completed\s+▼0\.00\s+1\.00$/m);
    expect(fail.stdout).toMatch(/^land-4\s+completed\s+1\.00\s+1\.00$/m);
    expect(fail.stdout).toMatch(/^mean\s+0\.80\s+1\.00$/m);
    expect(fail.stdout).toMatch(/^baseline\s+1\.00\s+1\.00$/m);
    expect(fail.stdout).toMatch(/^threshold\s+0\.90 ✗\s+–$/m);
    expect(fail.stdout).toContain(`· 10 worse than ${report.experiment.id} · FAILED: a threshold is not met`);
    const worse = JSON.parse(await readFile(join(dir, 'out/fail.json'), 'utf8')) as EvaluateResult;
    expect(worse.experiment.baseline).toBe(report.experiment.id);
    expect(worse.summary).toMatchObject({
      passed: false,
      worse: 10,
      scorers: { contains: { mean: 0.8, baseline: 1, passed: false } },
    });
    expect(worse.cases.filter((item) => item.worse).map((item) => item.id)).toEqual(
      WRONG.map((land) => land.replace('Land', 'land-')),
    );
    expect(worse.cases[2]?.worse).toEqual({ contains: { before: 1, now: 0 } });
    const failedJunit = await parseJunit(join(dir, 'out/fail.xml'));
    expect(failedJunit).toMatchObject({ tests: 100, failures: 10, errors: 0 });
    expect(failedJunit.suites[0]?.failed).toEqual(WRONG.map((land) => land.replace('Land', 'land-')));
    // The baseline by id, with --json: the same comparison, printed.
    const byId = await hubos(['eval', 'evals/geo.jsonl', '--baseline', report.experiment.id, '--json'], dir, {
      ...QUIET,
      EVAL_WRONG: 'Land1',
    });
    expect(byId.code).toBe(0);
    expect((JSON.parse(byId.stdout) as EvaluateResult).summary.worse).toBe(1);
  }, 120_000);

  it('says what is wrong with a command line (exit 2) or a dataset (exit 1)', async () => {
    const dir = await project();
    await writeFiles(dir, {
      'evals/bad.jsonl':
        '{"input": "hi", "expected": {"contains": "x"}}\n\n{"input": "yo", "expected": {"patern": "x"}}\n',
    });
    const usage = async (args: string[], message: string) => {
      const result = await hubos(['eval', ...args], dir, QUIET);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
      expect(result.stderr).toContain('Usage: hubos eval <dataset>');
    };
    await usage([], 'eval needs a dataset file');
    await usage(
      ['evals/geo.jsonl', '--threshold', 'contains=2'],
      '--threshold is <scorer>=<minimum mean from 0 to 1>',
    );
    await usage(['evals/geo.jsonl', '--threshold', 'contains'], 'got "contains"');
    await usage(
      ['evals/geo.jsonl', '--reporter', 'xml=out.xml'],
      '--reporter is json=<file> or junit=<file>',
    );
    await usage(
      ['evals/geo.jsonl', '--concurrency', '0'],
      '--concurrency must be a whole number from 1 to 1000',
    );
    await usage(
      ['evals/geo.jsonl', '--scorer', 'contans'],
      'no scorer named "contans" (did you mean "contains"?)',
    );
    await usage(['evals/geo.jsonl', '--agent', 'gep'], 'no agent named "gep" (did you mean "geo"?)');
    await usage(['evals/geo.jsonl', '--bogus'], 'unknown option "--bogus"');
    await usage(['a.jsonl', 'b.jsonl'], 'unexpected argument "b.jsonl"');
    const bad = await hubos(['eval', 'evals/bad.jsonl'], dir, QUIET);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      `✗ ${join(dir, 'evals/bad.jsonl')} line 3: "expected.patern": unknown expectation (did you mean "pattern"?)`,
    );
    expect(bad.stderr).toContain('[DATASET_INVALID]');
    const missing = await hubos(['eval', 'evals/geo.jsonl', '--baseline', 'nope'], dir, QUIET);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no experiment "nope" to compare with');
  }, 60_000);

  it("reads a TypeScript dataset module that imports 'hubos', in a folder that has not installed it", async () => {
    const dir = await project();
    await writeFiles(dir, {
      'evals/mod.ts': `import { defineDataset } from 'hubos';
export default defineDataset({
  name: 'typed',
  thresholds: { contains: 1 },
  cases: [{ id: 'one', input: 'What is the capital of Land1?', expected: { contains: 'City1' } }],
});
`,
    });
    const result = await hubos(['eval', 'evals/mod.ts'], dir, QUIET);
    expect(result.stderr).toContain('eval: 1 case of typed (sha256:');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^one\s+completed\s+1\.00$/m);
    expect(result.stdout).toMatch(/· 1 case · 0 failed ·/);
  }, 60_000);

  it('Ctrl-C cancels the cases still running: exit 130, and the runs are cancelled', async () => {
    const dir = await project();
    const child = spawn(process.execPath, [HUBOS_BIN, 'eval', 'evals/geo.jsonl', '--concurrency', '2'], {
      cwd: dir,
      env: { ...process.env, ...QUIET, EVAL_DELAY_MS: '200' },
    });
    let stderr = '';
    let interrupted = false;
    child.stderr.on('data', (data: Buffer) => {
      stderr += data;
      if (!interrupted && stderr.includes('eval: 5/50 cases')) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(130);
    expect(stderr).toContain('eval: cancelled; the experiment is kept, marked failed');
    const runs = await hubos(['runs', 'list', '--via', 'eval', '--json'], dir, QUIET);
    const statuses = (JSON.parse(runs.stdout) as { status: string }[]).map((run) => run.status);
    expect(statuses.filter((status) => status === 'cancelled').length).toBeGreaterThan(0);
    expect(statuses.length).toBeLessThan(50);
  }, 60_000);

  describe('a judge on an OpenAI-compatible server', () => {
    let server: FakeServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    it('asks the model config.evals.judge names, scores by its verdict, and fails the threshold it misses', async () => {
      // The judge: 1 for an answer naming its city, 0.2 otherwise; speaks Chat Completions, streamed or not.
      server = await startServer((request, res: ServerResponse) => {
        const prompt = request.body.messages.at(-1).content as string;
        const city = /capital of Land(\d+)/.exec(prompt)?.[1];
        const good = city !== undefined && prompt.includes(`is City${city}.`);
        const verdict = JSON.stringify({
          score: good ? 1 : 0.2,
          reason: good ? 'names the capital' : 'does not name the capital',
        });
        const usage = { prompt_tokens: 50, completion_tokens: 12, total_tokens: 62 };
        if (request.body.stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(
            `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: verdict }, finish_reason: 'stop' }] })}\n\n`,
          );
          res.end('data: [DONE]\n\n');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'c1',
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: verdict }, finish_reason: 'stop' }],
            usage,
          }),
        );
      });
      const dir = await project();
      await writeFiles(dir, {
        'evals/judged.json': JSON.stringify({
          name: 'judged',
          thresholds: { judge: 0.9 },
          scorers: [{ use: 'judge', rubric: 'The answer names the capital of the land asked about.' }],
          cases: [1, 2, 3, 4].map((n) => ({ id: `j${n}`, input: `What is the capital of Land${n}?` })),
        }),
      });
      const env = {
        ...QUIET,
        OPENAI_BASE_URL: `${server.url}/v1`,
        OPENAI_API_KEY: 'sk-test',
        JUDGE_URL: '1',
      };
      const pass = await hubos(['eval', 'evals/judged.json', '--json'], dir, env);
      expect(pass.stderr).not.toContain('✗');
      expect(pass.code).toBe(0);
      const passed = JSON.parse(pass.stdout) as EvaluateResult;
      expect(passed.cases[0]?.scores.judge).toEqual({ score: 1, reason: 'names the capital' });
      expect(passed.summary.scorers.judge).toMatchObject({ mean: 1, threshold: 0.9, passed: true });
      expect(server.requests).toHaveLength(4);
      expect(server.requests[0]?.body).toMatchObject({ model: 'judge-1', temperature: 0 });
      expect(server.requests[0]?.body.messages[0].content).toContain(
        'The answer names the capital of the land asked about.',
      );

      const fail = await hubos(['eval', 'evals/judged.json', '--json'], dir, { ...env, EVAL_WRONG: 'Land2' });
      expect(fail.code).toBe(1);
      const failed = JSON.parse(fail.stdout) as EvaluateResult;
      expect(failed.cases[1]?.scores.judge).toEqual({ score: 0.2, reason: 'does not name the capital' });
      expect(failed.summary.scorers.judge).toMatchObject({ mean: 0.8, passed: false });
    }, 60_000);
  });
});
