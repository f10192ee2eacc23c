import { describe, expect, it } from 'vitest';
import { junitReport, xml } from '../../bin/commands/eval-junit.ts';
import { progressBar } from '../../bin/commands/eval-progress.ts';
import { resultsTable } from '../../bin/commands/eval-table.ts';
import type { CaseResult, EvaluateResult } from '../../core/index.ts';

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
const item = (id: string, score: number, extra: Partial<CaseResult> = {}): CaseResult => ({
  id,
  input: 'q',
  output: 'a',
  runId: `run-${id}`,
  status: 'completed',
  scores: { contains: { score, reason: `reason <${id}> & "quoted"` } },
  latencyMs: 1500,
  usage,
  ...extra,
});

function result(cases: CaseResult[], threshold?: number): EvaluateResult {
  const mean = cases.reduce((sum, one) => sum + (one.scores.contains?.score ?? 0), 0) / cases.length;
  const summary = {
    cases: cases.length,
    failed: cases.filter((one) => one.status !== 'completed').length,
    scorers: {
      contains: {
        mean,
        cases: cases.length,
        ...(threshold !== undefined ? { threshold, passed: mean >= threshold } : {}),
      },
    },
    passed: threshold === undefined || mean >= threshold,
    durationMs: 3000,
    usage,
  };
  return {
    experiment: {
      id: 'exp-1',
      name: 'qa <nightly> & more',
      agent: 'support',
      model: 'scripted:x',
      dataset: { name: 'qa', version: 'sha256:0123456789abcdef', cases: cases.length },
      owner: 'local',
      status: 'completed',
      createdAt: '2026-11-28T10:00:00.000Z',
      summary,
    },
    cases,
    summary,
  };
}

describe('the JUnit report', () => {
  it('fails the cases below the threshold, errors the runs that failed, and escapes what XML cannot hold', () => {
    const report = junitReport(
      result(
        [
          item('a&b', 1),
          item('c"d', 0.5),
          item('e\u0001f', 0, {
            status: 'failed',
            error: { code: 'MODEL_HTTP_ERROR', message: 'down <502>' },
          }),
        ],
        0.9,
      ),
    );
    expect(report).toContain(
      '<testsuites name="qa &lt;nightly&gt; &amp; more" tests="3" failures="1" errors="1" time="3.000">',
    );
    expect(report).toContain('<testsuite name="contains" tests="3" failures="1" errors="1"');
    expect(report).toContain('<testcase name="a&amp;b" classname="qa.contains" time="1.500">');
    expect(report).toContain(
      '<failure message="score 0.5 is below the threshold 0.9" type="below-threshold">reason &lt;c&quot;d&gt; &amp; &quot;quoted&quot;</failure>',
    );
    expect(report).toContain('<testcase name="e\ufffdf"');
    expect(report).toContain(
      '<error message="down &lt;502&gt; [MODEL_HTTP_ERROR]" type="MODEL_HTTP_ERROR"/>',
    );
    expect(junitReport(result([item('x', 0)]))).not.toContain('<failure');
  });

  it('xml() replaces lone surrogates and control characters, keeps tabs, newlines and pairs', () => {
    expect(xml("a\tb\nc'\ud83d\ude00\ud800\u0000")).toBe('a\tb\nc&apos;\ud83d\ude00\ufffd\ufffd');
  });
});

describe('the results table', () => {
  it('a row per case, ▼ for worse, then the mean and the threshold with its verdict', () => {
    const table = resultsTable(
      result([item('one', 1), item('two\nlines', 0, { worse: { contains: { before: 1, now: 0 } } })], 0.9),
    );
    expect(table.split('\n').slice(0, 7)).toEqual([
      'case       status     contains',
      '─────────  ─────────  ────────',
      'one        completed      1.00',
      'two lines  completed     ▼0.00',
      '─────────  ─────────  ────────',
      'mean                      0.50',
      'threshold               0.90 ✗',
    ]);
    expect(table).toContain('experiment exp-1 · 2 cases · 0 failed · 3.0 s · FAILED: a threshold is not met');
  });
});

describe('the progress bar', () => {
  it('redraws one line on a terminal, and writes a line per tenth otherwise', () => {
    const tty: string[] = [];
    const bar = progressBar({ isTTY: true, write: (text: string) => tty.push(text) }, 4);
    bar.update(1, 0);
    bar.update(4, 1);
    bar.end();
    expect(tty[0]).toBe(`\r\u001b[2K[${'█'.repeat(8)}${'░'.repeat(22)}] 1/4 25%`);
    expect(tty[1]).toBe(`\r\u001b[2K[${'█'.repeat(30)}] 4/4 100% · 1 failed`);
    expect(tty[2]).toBe('\n');
    const lines: string[] = [];
    const plain = progressBar({ write: (text: string) => lines.push(text) }, 20);
    for (let done = 1; done <= 20; done++) plain.update(done, 0);
    plain.end();
    expect(lines).toHaveLength(10);
    expect(lines[0]).toBe('eval: 2/20 cases (10%)\n');
    expect(lines[9]).toBe('eval: 20/20 cases (100%)\n');
  });
});
