// `hubos run` with guardrails: a redaction is a line on stderr, a trip ends the run with its code.
import { describe, expect, it } from 'vitest';
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
  agents: {
    helper: {
      tools: ['echo'],
      guardrails: { tool: ['pii'], output: [{ use: 'blocked-terms', terms: ['hunter2'] }] },
    },
  },
});
`;

const OFFLINE = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', OPENAI_BASE_URL: '' };

describe('hubos run with guardrails', () => {
  it('prints a redaction on stderr; the answer shows the redacted text', async () => {
    const dir = await tempDir('hubos-run-guardrails-');
    await writeFiles(dir, { 'agent.config.ts': CONFIG });
    const result = await hubos(['run', 'helper', '/echo {"text":"card 4111 1111 1111 1111"}'], dir, OFFLINE);
    expect(result.stderr).toContain('⚑ guardrail pii rewrote the tool-input');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('echo returned: {"echoed":"card [redacted:card]"}\n');
    // The tool's output, and so the answer, has it redacted (the model's own call is shown as it made it).
    expect(result.stderr).toMatch(/✓ echo \(\d+ ms\)/);
  });

  it('a trip ends the run with exit code 1 and GUARDRAIL_TRIPPED, the blocked answer unprinted', async () => {
    const dir = await tempDir('hubos-run-guardrails-');
    await writeFiles(dir, { 'agent.config.ts': CONFIG });
    const result = await hubos(['run', 'helper', '/echo {"text":"hunter2"}'], dir, OFFLINE);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('⚑ guardrail blocked-terms tripped the output');
    expect(result.stderr).toMatch(
      /✗ guardrail "blocked-terms" tripped on the output: .* \[GUARDRAIL_TRIPPED\]/,
    );
  });
});
