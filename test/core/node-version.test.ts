import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { hasModuleSyntax } from '../../core/app-module-format.ts';
import { NODE_ENGINES, unsupportedNodeMessage } from '../../core/node-version.ts';

describe('the Node.js version guard', () => {
  it('accepts 22.19 on the 22 line, then 24 on, as package.json engines says', () => {
    for (const ok of ['22.19.0', '22.23.3', '24.0.0', '25.2.0', '26.10.0']) {
      expect(unsupportedNodeMessage(ok), ok).toBeUndefined();
    }
    for (const old of ['18.20.0', '20.20.2', '22.18.0', '23.6.0', '23.11.1']) {
      expect(unsupportedNodeMessage(old), old).toContain(`and this is Node.js ${old}.`);
    }
    expect(unsupportedNodeMessage('23.11.1')).toContain('or 24 or newer (Node.js 23 is not supported)');
    expect(unsupportedNodeMessage('20.20.2')).toMatch(
      /^HubOS needs Node\.js 22\.19\.0 or newer, .* Install Node\.js 24 \(LTS\)/,
    );
    expect(unsupportedNodeMessage('20.20.2')).not.toContain('\n');
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(pkg.engines.node).toBe(NODE_ENGINES);
    // The guard and the range agree on every release of the lines around them.
    for (const version of ['22.18.9', '22.19.0', '23.6.0', '23.99.0', '24.0.0', '27.0.0']) {
      expect(unsupportedNodeMessage(version) === undefined, version).toBe(
        semver.satisfies(version, NODE_ENGINES),
      );
    }
  });
});

describe('hasModuleSyntax: which app files load as ES modules under "type": "commonjs"', () => {
  it.each([
    [
      'a static import',
      "import { defineConfig } from 'hubos';\nconst n: number = 1;\nexport default defineConfig({ n });",
    ],
    ['an export after a comment', '/* c */ export default 42'],
    ['an export list', 'const x = 1; export { x }'],
    ['an export after a semicolon', ';export default 9'],
    ['a byte order mark first', '\uFEFFexport default 1'],
    ['import.meta', 'console.log(import.meta.url);'],
    ['no spaces', "import{a}from'x';export*from'y'"],
    ['TypeScript generics', 'const f = <T,>(x: T): T => x;\nexport const y = f<number>(1);'],
  ])('ESM: %s', (_name, source) => {
    expect(hasModuleSyntax(source)).toBe(true);
  });

  it.each([
    [
      'a name starting with "import"',
      "const importer = require('node:path');\nimporter.join('a');\nmodule.exports = {};",
    ],
    ['imports.push', "const imports = [];\nimports.push('a');\nmodule.exports = imports;"],
    [
      'an import line in a template string',
      'const s = `\nimport data from somewhere\n`;\nmodule.exports = s;',
    ],
    ['an export line in a comment', '/*\nexport default 1\n*/\nmodule.exports = 2;'],
    ['import.meta in a comment', '// import.meta.dirname\nmodule.exports = 1;'],
    ['a dynamic import', "module.exports = () => import('./x.js');"],
    ['only type imports', "import type { X } from './x';\nconst a: X = require('./y');\nmodule.exports = a;"],
  ])('CommonJS: %s', (_name, source) => {
    expect(hasModuleSyntax(source)).toBe(false);
  });
});
