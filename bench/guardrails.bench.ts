/**
 * Guardrail built-ins on hostile text: `pii`, `injection` and `blocked-terms` over 100 KB made to
 * make patterns backtrack (digits and spaces, `@` runs, IBAN and key heads, repeated phrases).
 * Baseline: the same guardrails over 100 KB of ordinary prose. Linear scans keep the ratio near 1;
 * a pattern that backtracks shows as a ratio of a hundredth or less. Target: ≥ 0.2x prose's throughput
 * (hostile text is dense with candidates, each checked; what must not happen is a blow-up).
 */

import type { GuardrailContext } from '../core/index.ts';
import { guardrails } from '../core/index.ts';
import { report } from './measure.ts';

const SIZE = 100_000;
const fill = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);
const hostile = [
  fill('1 2 3 4 5 6 7 8 9 0 '),
  fill('@'),
  fill('a@b.'),
  fill('DE89 '),
  fill('sk-'),
  fill('+1 (4'),
  fill('ignore all '),
  fill('you are now a '),
];
const prose = fill(
  'The quarterly report was sent to the team on Monday; it covers sales, support and the roadmap. ',
);

const checks = [
  guardrails.pii(),
  guardrails.injection(),
  guardrails.blockedTerms({ terms: ['project falcon', 'internal roadmap'], action: 'redact' }),
];
const ctx: GuardrailContext = {
  stage: 'tool-output',
  agent: 'bench',
  runId: 'bench',
  signal: new AbortController().signal,
};
const checkAll = async (texts: readonly string[]) => {
  for (const text of texts) for (const guard of checks) await guard.check(text, ctx);
};

/** Checks per second over `rounds` rounds after two untimed ones (each round is 800 KB of text: a few make a figure). */
async function roundsPerSecond(texts: readonly string[], rounds = 10): Promise<number> {
  for (let i = 0; i < 2; i++) await checkAll(texts);
  const start = performance.now();
  for (let i = 0; i < rounds; i++) await checkAll(texts);
  return rounds / ((performance.now() - start) / 1000);
}

const hostileOps = await roundsPerSecond(hostile);
const proseOps = await roundsPerSecond(Array(hostile.length).fill(prose));
report('guardrails on 8 x 100 KB of hostile text', hostileOps, proseOps, '8 x 100 KB of prose');
