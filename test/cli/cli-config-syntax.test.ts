/**
 * A config that does not load says where: the file, line and column, and the line with a caret,
 * for each extension a config may have, for a JSON file it imports, and for an error it throws.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hubos, tempDir, writeFiles } from '../helpers/run.ts';

const BROKEN_ESM = 'export default {\n  agents: {\n    helper: { tools: [ },\n  },\n};\n';
const BROKEN_CJS = 'module.exports = {\n  agents: {\n    helper: { tools: [ },\n  },\n};\n';
const FRAME = '  2 |   agents: {\n  3 |     helper: { tools: [ },\n    |                        ^\n';

/** Runs `hubos validate` in a folder with these files; the config's path is in the message. */
async function validate(files: Record<string, string>) {
  const dir = await tempDir('hubos-syntax-');
  await writeFiles(dir, files);
  return { dir, result: await hubos(['validate'], dir) };
}

describe('a config with a syntax error', () => {
  const cases: [string, Record<string, string>, string][] = [
    ['.ts', { 'agent.config.ts': BROKEN_ESM }, 'Expression expected'],
    ['.mts', { 'agent.config.mts': BROKEN_ESM }, 'Expression expected'],
    ['.cts', { 'agent.config.cts': BROKEN_CJS }, 'Expression expected'],
    ['.mjs', { 'agent.config.mjs': BROKEN_ESM }, "Unexpected token '}'"],
    ['.cjs', { 'agent.config.cjs': BROKEN_CJS }, "Unexpected token '}'"],
    [
      '.js in a "type": "module" app',
      { 'agent.config.js': BROKEN_ESM, 'package.json': '{ "type": "module" }' },
      "Unexpected token '}'",
    ],
    [
      '.js written as an ES module in a CommonJS app',
      { 'agent.config.js': BROKEN_ESM },
      "Unexpected token '}'",
    ],
    ['.js written as CommonJS', { 'agent.config.js': BROKEN_CJS }, "Unexpected token '}'"],
  ];
  for (const [name, files, what] of cases) {
    it(`${name}: names the file, line and column, and shows the line with a caret; exit 1`, async () => {
      const { dir, result } = await validate(files);
      const file = join(dir, Object.keys(files)[0]!);
      expect(result.stdout).toBe('');
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `✗ cannot load ${file}: syntax error: ${what} at ${file}:3:24 [CONFIG_LOAD_FAILED]\n${FRAME}`,
      );
    });
  }

  it('in a JSON file the config imports: names that file, line and column', async () => {
    const { dir, result } = await validate({
      'agent.config.mjs':
        "import agents from './agents.json' with { type: 'json' };\nexport default { agents };\n",
      'agents.json': '{\n  "helper": { "tools": [1,}\n}\n',
    });
    const json = join(dir, 'agents.json');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `✗ cannot load ${join(dir, 'agent.config.mjs')}: syntax error: ${json}: Unexpected token '}': not valid JSON at ${json}:2:27 [CONFIG_LOAD_FAILED]\n` +
        '  1 | {\n  2 |   "helper": { "tools": [1,}\n    |                           ^\n',
    );
  });

  it('in a JavaScript module the config imports, through another: names that module', async () => {
    const { dir, result } = await validate({
      'agent.config.ts':
        "import agents from './agents.mjs';\nconst mode: string = 'x';\nexport default { agents };\n",
      'agents.mjs': "import { helper } from './lib/helper.mjs';\nexport default { helper };\n",
      'lib/helper.mjs': 'export const helper = {\n  tools: [ },\n};\n',
    });
    const helper = join(dir, 'lib/helper.mjs');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `✗ cannot load ${join(dir, 'agent.config.ts')}: syntax error: Unexpected token '}' at ${helper}:2:12 [CONFIG_LOAD_FAILED]\n` +
        '  1 | export const helper = {\n  2 |   tools: [ },\n    |            ^\n',
    );
  });

  it('an error the config throws as it runs names where it was thrown', async () => {
    const { dir, result } = await validate({
      'agent.config.mjs': 'const settings = {};\nexport default { agents: settings.team.agents };\n',
    });
    const file = join(dir, 'agent.config.mjs');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `✗ cannot load ${file}: Cannot read properties of undefined (reading 'agents') at ${file}:2:40 [CONFIG_LOAD_FAILED]\n` +
        '  1 | const settings = {};\n  2 | export default { agents: settings.team.agents };\n    |                                        ^\n',
    );
  });

  it('control characters in the file are not written to the terminal', async () => {
    const { result } = await validate({ 'agent.config.mjs': 'export default {\n  a: "\u001b[2J" [ }\n};\n' });
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('\u001b');
    expect(result.stderr).toContain('  2 |   a: " [2J" [ }\n');
  });
});
