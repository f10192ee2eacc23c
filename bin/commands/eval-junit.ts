import type { EvaluateResult } from '../../core/index.ts';

/**
 * An experiment as JUnit XML: a testsuite per scorer, a testcase per case it scored. A case scoring
 * below the scorer's threshold is a `<failure>`; a case whose run did not complete is an `<error>`.
 * Without a threshold a scorer's cases fail none (the score and reason are in `system-out`).
 */
export function junitReport(result: EvaluateResult): string {
  const { experiment, cases, summary } = result;
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  for (const [scorer, stats] of Object.entries(summary.scorers)) {
    const rows: string[] = [];
    let suiteFailures = 0;
    let suiteErrors = 0;
    let time = 0;
    for (const item of cases) {
      const score = item.scores[scorer];
      if (!score) continue;
      time += item.latencyMs / 1000;
      const attrs = `name="${xml(item.id)}" classname="${xml(`${experiment.dataset.name}.${scorer}`)}" time="${seconds(item.latencyMs)}"`;
      const body: string[] = [];
      if (item.status !== 'completed') {
        suiteErrors++;
        const message = item.error ? `${item.error.message} [${item.error.code}]` : `the run ${item.status}`;
        body.push(`<error message="${xml(message)}" type="${xml(item.error?.code ?? item.status)}"/>`);
      } else if (stats.threshold !== undefined && score.score < stats.threshold) {
        suiteFailures++;
        body.push(
          `<failure message="${xml(`score ${score.score} is below the threshold ${stats.threshold}`)}" type="below-threshold">${xml(score.reason)}</failure>`,
        );
      }
      body.push(`<system-out>${xml(`score ${score.score}: ${score.reason}`)}</system-out>`);
      rows.push(`    <testcase ${attrs}>\n      ${body.join('\n      ')}\n    </testcase>`);
    }
    tests += rows.length;
    failures += suiteFailures;
    errors += suiteErrors;
    const mean = `mean ${stats.mean}${stats.threshold !== undefined ? ` (threshold ${stats.threshold})` : ''}`;
    suites.push(
      `  <testsuite name="${xml(scorer)}" tests="${rows.length}" failures="${suiteFailures}" errors="${suiteErrors}" skipped="0" time="${time.toFixed(3)}" timestamp="${xml(experiment.createdAt.replace(/Z$/, ''))}">\n` +
        `    <properties>\n      <property name="experiment" value="${xml(experiment.id)}"/>\n      <property name="agent" value="${xml(experiment.agent)}"/>\n      <property name="dataset.version" value="${xml(experiment.dataset.version)}"/>\n      <property name="summary" value="${xml(mean)}"/>\n    </properties>\n` +
        `${rows.join('\n')}${rows.length ? '\n' : ''}  </testsuite>`,
    );
  }
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites name="${xml(experiment.name)}" tests="${tests}" failures="${failures}" errors="${errors}" time="${seconds(summary.durationMs)}">\n` +
    `${suites.join('\n')}${suites.length ? '\n' : ''}</testsuites>\n`
  );
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

const NOT_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML 1.0 forbids.
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text safe inside an XML attribute or element: markup characters escaped, and characters XML 1.0
 * cannot hold at all (control characters, lone surrogates) replaced with U+FFFD.
 */
export function xml(text: string): string {
  return text
    .replace(NOT_XML, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\r/g, '&#13;');
}
