/**
 * The OTLP exporter is an optional peer dependency: a start that asks for telemetry without it
 * installed fails at once, naming the `npm install` to run, and the config's headers are not in
 * the error. A real `hubos validate` process, in which the exporter does not resolve.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HUBOS_BIN, ROOT, run, tempDir, writeFiles } from '../helpers/run.ts';

const HIDE_EXPORTER = join(ROOT, 'test/fixtures/telemetry/hide-otlp-exporter.mjs');

describe('telemetry without its packages', () => {
  it('fails the start with the npm install to run, and no header value', async () => {
    const dir = await tempDir('hubos-otlp-missing-');
    await writeFiles(dir, {
      'agent.config.mjs': `export default {
  telemetry: { otlp: { endpoint: 'http://127.0.0.1:1', headers: { authorization: 'Bearer missing-pkg-secret-9e1' } } },
};
`,
    });
    const result = await run(process.execPath, ['--import', HIDE_EXPORTER, HUBOS_BIN, 'validate'], {
      cwd: dir,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'run "npm install @opentelemetry/sdk-trace-base @opentelemetry/resources @opentelemetry/exporter-trace-otlp-http" in the app',
    );
    expect(result.stderr).toContain('@opentelemetry/exporter-trace-otlp-http is not installed');
    expect(result.stderr + result.stdout).not.toContain('missing-pkg-secret-9e1');
  });
});
