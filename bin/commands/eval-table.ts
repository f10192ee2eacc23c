import type { CaseResult, EvaluateResult } from '../../core/index.ts';

/**
 * The results as a table: a row per case (its id, its run's status, each scorer's score, ▼ after
 * one that is worse than in the baseline), then the means, the thresholds and the verdict.
 */
export function resultsTable(result: EvaluateResult): string {
  const { cases, summary, experiment } = result;
  const scorers = Object.keys(summary.scorers);
  const rows: string[][] = [['case', 'status', ...scorers]];
  for (const item of cases)
    rows.push([oneLine(item.id), item.status, ...scorers.map((name) => cell(item, name))]);
  const means = ['mean', '', ...scorers.map((name) => fixed(summary.scorers[name]?.mean ?? 0))];
  const hasBaseline = scorers.some((name) => summary.scorers[name]?.baseline !== undefined);
  const baseline = ['baseline', '', ...scorers.map((name) => optional(summary.scorers[name]?.baseline))];
  const thresholds = [
    'threshold',
    '',
    ...scorers.map((name) => {
      const stats = summary.scorers[name];
      if (stats?.threshold === undefined) return '–';
      return `${fixed(stats.threshold)} ${stats.passed ? '✓' : '✗'}`;
    }),
  ];
  const footer = [means, ...(hasBaseline ? [baseline] : []), thresholds];
  const widths =
    rows[0]?.map((_, i) => Math.max(...[...rows, ...footer].map((row) => width(row[i] ?? '')))) ?? [];
  const line = (row: string[]) =>
    row
      .map((text, i) => (i < 2 ? pad(text, widths[i] ?? 0) : padStart(text, widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '─'.repeat(w)).join('  ');
  const verdict = summary.passed ? 'passed' : 'FAILED: a threshold is not met';
  const worse = summary.worse !== undefined ? ` · ${summary.worse} worse than ${experiment.baseline}` : '';
  return [
    line(rows[0] ?? []),
    rule,
    ...rows.slice(1).map(line),
    rule,
    ...footer.map(line),
    '',
    `experiment ${experiment.id} · ${summary.cases} ${summary.cases === 1 ? 'case' : 'cases'} · ${summary.failed} failed · ${(summary.durationMs / 1000).toFixed(1)} s${worse} · ${verdict}`,
    '',
  ].join('\n');
}

function cell(item: CaseResult, scorer: string): string {
  const score = item.scores[scorer];
  if (!score) return '–';
  return `${item.worse?.[scorer] ? '▼' : ''}${fixed(score.score)}`;
}

const fixed = (value: number) => value.toFixed(2);
const optional = (value: number | undefined) => (value === undefined ? '–' : fixed(value));
const width = (text: string) => [...text].length;
const pad = (text: string, to: number) => text + ' '.repeat(Math.max(0, to - width(text)));
const padStart = (text: string, to: number) => ' '.repeat(Math.max(0, to - width(text))) + text;

/** An id on one line, without control characters (they could move the cursor), at most 40 characters. */
function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes.
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
  return clean.length > 40 ? `${clean.slice(0, 39)}…` : clean;
}
