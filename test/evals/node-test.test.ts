import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const FIXTURE = fileURLToPath(new URL('./fixtures/capitals.node-test.ts', import.meta.url));

function nodeTest(env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--test', '--test-reporter=tap', FIXTURE],
      { env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: String(stdout) }),
    );
  });
}

describe('evaluate() from node:test', () => {
  it('passes under `node --test` when the thresholds are met, and fails when one is not', async () => {
    const [pass, fail] = await Promise.all([nodeTest({ EVAL_WRONG: '' }), nodeTest({ EVAL_WRONG: 'Italy' })]);
    expect(pass.stdout).toContain('ok 1 - the geography agent knows its capitals');
    expect(pass.code).toBe(0);
    expect(fail.stdout).toContain('not ok 1 - the geography agent knows its capitals');
    expect(fail.stdout).toContain('thresholds not met');
    expect(fail.code).toBe(1);
  }, 60_000);
});
