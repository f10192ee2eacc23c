import { mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { dataset, datasetVersion, defineDataset, HubosError, loadDataset } from '../../core/index.ts';
import { ROOT } from '../helpers/run.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hubos-datasets-'));
  // Modules import 'hubos' as an app's would.
  await writeFile(join(dir, 'package.json'), '{ "type": "module" }');
  await import('node:fs/promises').then((fs) => fs.mkdir(join(dir, 'node_modules'), { recursive: true }));
  await symlink(ROOT, join(dir, 'node_modules/hubos'), 'dir');
});

async function file(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

async function problem(name: string, content: string): Promise<HubosError> {
  const path = await file(name, content);
  try {
    await loadDataset(path);
  } catch (error) {
    expect(HubosError.is(error, 'DATASET_INVALID'), String(error)).toBe(true);
    return error as HubosError;
  }
  throw new Error(`${name} loaded`);
}

describe('loadDataset', () => {
  it('reads JSONL: a case a line, blank lines skipped, ids defaulting to their place', async () => {
    const path = await file(
      'qa.jsonl',
      '{"id":"a","input":"hi","expected":{"contains":["hello","hi"]}}\n\n{"input":"2+2?","expected":{"output":"4"},"tags":["math"]}\r\n',
    );
    const loaded = await loadDataset(path);
    expect(loaded).toEqual({
      name: 'qa',
      version: datasetVersion(loaded.cases),
      file: path,
      cases: [
        { id: 'a', input: 'hi', expected: { contains: ['hello', 'hi'] } },
        { id: '2', input: '2+2?', expected: { output: '4' }, tags: ['math'] },
      ],
    });
    expect(loaded.version).toMatch(/^sha256:[0-9a-f]{16}$/);
  });

  it('reads CSV: the named columns, tags split at ;, metadata.<key> and expected.<key> as JSON', async () => {
    const path = await file(
      'support.csv',
      'id,input,expected,contains,pattern,tags,metadata.team,expected.maxSteps,expected.tools\r\n' +
        'r1,"Refund, please",,refund,,billing; urgent,payments,3,"{""calls"":[""refunds""]}"\r\n' +
        'r2,"Say ""yes""\nplease",yes,,/^yes$/i,,,,\r\n',
    );
    const loaded = await loadDataset(path);
    expect(loaded.name).toBe('support');
    expect(loaded.cases).toEqual([
      {
        id: 'r1',
        input: 'Refund, please',
        expected: { contains: 'refund', maxSteps: 3, tools: { calls: ['refunds'] } },
        tags: ['billing', 'urgent'],
        metadata: { team: 'payments' },
      },
      { id: 'r2', input: 'Say "yes"\nplease', expected: { output: 'yes', pattern: '/^yes$/i' } },
    ]);
  });

  it('reads JSON: a dataset object (name, thresholds, scorers) or a list of cases', async () => {
    const object = await loadDataset(
      await file(
        'obj.json',
        JSON.stringify({
          name: 'named',
          thresholds: { contains: 0.8 },
          scorers: ['contains', { use: 'judge', rubric: 'polite' }],
          cases: [{ input: [{ role: 'user', content: 'hi' }], expected: { contains: 'hello' } }],
        }),
      ),
    );
    expect(object).toMatchObject({
      name: 'named',
      thresholds: { contains: 0.8 },
      scorers: ['contains', { use: 'judge', rubric: 'polite' }],
      cases: [{ id: '1', input: [{ role: 'user', content: 'hi' }] }],
    });
    const list = await loadDataset(await file('list.json', '[{"input":"x","expected":{"pattern":"^x$"}}]'));
    expect(list).toMatchObject({ name: 'list', cases: [{ id: '1', input: 'x' }] });
  });

  it("reads modules (.ts, .mjs): the default export, defineDataset's or a list", async () => {
    const ts = await loadDataset(
      await file(
        'mod.ts',
        `import { defineDataset } from 'hubos';
export default defineDataset({ name: 'from-ts', thresholds: { exact: 1 }, cases: [{ id: 'one', input: 'hi', expected: { output: 'hello' } }] });
`,
      ),
    );
    expect(ts).toMatchObject({ name: 'from-ts', thresholds: { exact: 1 }, cases: [{ id: 'one' }] });
    const mjs = await loadDataset(
      await file('list.mjs', 'export default [{ input: "a" }, { input: "b" }];\n'),
    );
    expect(mjs.cases.map((item) => item.id)).toEqual(['1', '2']);
    expect(defineDataset([{ input: 'x' }])).toEqual([{ input: 'x' }]);
  });

  it('versions by content: the same cases in any key order give the same version, others another', () => {
    const a = dataset([{ input: 'x', expected: { contains: 'y', output: 'z' } }]);
    const b = dataset({ cases: [{ expected: { output: 'z', contains: 'y' }, input: 'x' }] });
    const c = dataset([{ input: 'x', expected: { contains: 'Y', output: 'z' } }]);
    expect(a.version).toBe(b.version);
    expect(a.version).not.toBe(c.version);
    expect(a.name).toBe('inline');
  });
});

describe('dataset validation: DATASET_INVALID naming the file, line and field', () => {
  const cases: [string, string, string, RegExp][] = [
    ['not-json.jsonl', '{"input":"a"}\n{nope}\n', 'line 2', /is not valid JSON .*each line holds one case/],
    ['not-object.jsonl', '"just text"\n', 'line 1', /a case is an object like/],
    ['no-input.jsonl', '{"expected":{"contains":"x"}}\n', 'line 1: "input"', /is missing/],
    ['empty-input.jsonl', '{"input":"  "}\n', 'line 1: "input"', /is empty/],
    [
      'unknown-field.jsonl',
      '{"input":"a","expect":{}}\n',
      'line 1: "expect"',
      /unknown field \(did you mean "expected"\?\)/,
    ],
    [
      'bad-id.jsonl',
      '{"id":7,"input":"a"}\n',
      'line 1: "id"',
      /must be a text of 1 to 200 characters, got number 7/,
    ],
    [
      'dup-id.jsonl',
      '{"id":"a","input":"a"}\n{"id":"a","input":"b"}\n',
      'line 2: "id"',
      /"a" is the id of an earlier case/,
    ],
    ['bad-session.jsonl', '{"input":"a","sessionId":""}\n', 'line 1: "sessionId"', /non-empty text/],
    ['bad-tags.jsonl', '{"input":"a","tags":"x"}\n', 'line 1: "tags"', /must be a list of texts/],
    ['bad-meta.jsonl', '{"input":"a","metadata":[1]}\n', 'line 1: "metadata"', /must be an object/],
    ['bad-message.jsonl', '{"input":[{"role":"bot","content":"x"}]}\n', 'line 1: "input[0]"', /a message is/],
    [
      'bad-content.jsonl',
      '{"input":[{"role":"user","content":5}]}\n',
      'line 1: "input[0].content"',
      /must be a text/,
    ],
    [
      'bad-tool-msg.jsonl',
      '{"input":[{"role":"tool","content":"x"},{"role":"user","content":"y"}]}\n',
      'line 1: "input[0]"',
      /needs "toolCallId" and "name"/,
    ],
    [
      'last-not-user.jsonl',
      '{"input":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}\n',
      'line 1: "input[1]"',
      /the last message must be the user's/,
    ],
    ['bad-expected.jsonl', '{"input":"a","expected":"x"}\n', 'line 1: "expected"', /must be an object like/],
    [
      'bad-expectation.jsonl',
      '{"input":"a","expected":{"contain":"x"}}\n',
      'line 1: "expected.contain"',
      /did you mean "contains"/,
    ],
    [
      'bad-output.jsonl',
      '{"input":"a","expected":{"output":4}}\n',
      'line 1: "expected.output"',
      /must be a text, got number 4/,
    ],
    [
      'bad-contains.jsonl',
      '{"input":"a","expected":{"contains":[]}}\n',
      'line 1: "expected.contains"',
      /non-empty list of texts/,
    ],
    [
      'bad-pattern.jsonl',
      '{"input":"a","expected":{"pattern":"("}}\n',
      'line 1: "expected.pattern"',
      /is not a valid regular expression/,
    ],
    [
      'bad-schema.jsonl',
      '{"input":"a","expected":{"schema":{"type":"nope"}}}\n',
      'line 1: "expected.schema"',
      /is not a valid JSON Schema/,
    ],
    [
      'bad-tools.jsonl',
      '{"input":"a","expected":{"tools":["x"]}}\n',
      'line 1: "expected.tools"',
      /must be \{"calls"/,
    ],
    [
      'bad-call.jsonl',
      '{"input":"a","expected":{"tools":{"calls":[{"input":{}}]}}}\n',
      'line 1: "expected.tools.calls[0]"',
      /a call is a tool's name/,
    ],
    [
      'bad-match.jsonl',
      '{"input":"a","expected":{"tools":{"calls":["x"],"match":"any"}}}\n',
      'line 1: "expected.tools.match"',
      /must be one of exact, ordered, unordered/,
    ],
    [
      'bad-criteria.jsonl',
      '{"input":"a","expected":{"criteria":""}}\n',
      'line 1: "expected.criteria"',
      /non-empty text/,
    ],
    [
      'bad-budget.jsonl',
      '{"input":"a","expected":{"maxSteps":-1}}\n',
      'line 1: "expected.maxSteps"',
      /a number of 0 or more/,
    ],
    ['empty.jsonl', '\n\n', '', /has no cases/],
    ['bad-column.csv', 'id,inptu\n1,a\n', 'line 1: "inptu"', /unknown column \(did you mean "input"\?\)/],
    ['no-input.csv', 'id,contains\n1,a\n', 'line 1: "input"', /no "input" column/],
    ['twice.csv', 'input,input\na,b\n', 'line 1: "input"', /appears twice/],
    ['cells.csv', 'input,contains\n"a,b",c,d\n', 'line 2', /has 3 cells but the header has 2 columns/],
    ['quote.csv', 'input\n"open\n', 'line 2', /a quoted cell is not closed/],
    [
      'bad-cell.csv',
      'input,expected.maxSteps\na,many\n',
      'line 2: "expected.maxSteps"',
      /a number of 0 or more, got string "many"/,
    ],
    ['bad.json', '{"cases": [', '', /is not valid JSON/],
    ['bad-cases.json', '{"cases": {}}', '"cases"', /must be a list of cases/],
    ['bad-key.json', '{"cases": [], "threshold": {}}', '"threshold"', /unknown field/],
    [
      'bad-threshold.json',
      '{"cases": [{"input":"a"}], "thresholds": {"contains": 2}}',
      '"thresholds.contains"',
      /a number from 0 to 1/,
    ],
    [
      'bad-scorers.json',
      '{"cases": [{"input":"a"}], "scorers": [{"rubric":"x"}]}',
      '"scorers[0]"',
      /a scorer is a name/,
    ],
    [
      'bad-case.json',
      '{"cases": [{"input":"a"}, {"input":"b","expected":{"output":1}}]}',
      'cases[1]: "expected.output"',
      /must be a text/,
    ],
    ['no-default.mjs', 'export const cases = [];\n', '"default"', /no default export/],
    ['throws.mjs', 'throw new Error("broken module");\n', '', /cannot load dataset module .*broken module/],
    [
      'deep.jsonl',
      `{"input":"a","metadata":{"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}}\n`,
      'line 1',
      /nests more than 64 levels deep/,
    ],
    [
      'deep.json',
      `[{"input":"a","expected":{"schema":${'{"items":'.repeat(5000)}{}${'}'.repeat(5000)}}}]`,
      'cases[0]',
      /nests more than 64 levels deep/,
    ],
    ['data.txt', 'x', '', /a dataset is a .jsonl, .csv, .json, .ts, .mts, .js, .mjs file/],
  ];
  for (const [name, content, where, message] of cases) {
    it(`${name}: ${message.source}`, async () => {
      const error = await problem(name, content);
      expect(error.message).toContain(join(dir, name));
      if (where) expect(error.message).toContain(where);
      expect(error.message).toMatch(message);
      const line = /line (\d+)/.exec(where)?.[1];
      if (line) expect(error.details.line).toBe(Number(line));
    });
  }

  it('refuses a JSONL file of too many cases before parsing the lines past the limit', async () => {
    const error = await problem('many.jsonl', `${'{"input":"a"}\n'.repeat(100_000)}{not json}\n`);
    expect(error.message).toMatch(/has more than 100000 cases; at most 100000: split it$/);
  });

  it('a missing file says it cannot be read', async () => {
    await expect(loadDataset(join(dir, 'missing.jsonl'))).rejects.toMatchObject({
      code: 'DATASET_INVALID',
      message: expect.stringContaining('cannot read dataset'),
    });
  });

  it('an inline dataset names itself in errors', () => {
    expect(() => dataset([{ input: 'a', expected: { pattern: '[' } }])).toThrow(
      /^inline dataset cases\[0\]: "expected.pattern": is not a valid regular expression/,
    );
  });
});
