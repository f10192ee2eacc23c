import { describe, expect, it } from 'vitest';
import { type Logger, Registry } from '../../../core/index.ts';
import { ToolSync } from '../../../plugins/mcp/client/tool-sync.ts';

const silent = (warnings: string[]): Logger =>
  ({
    debug() {},
    info() {},
    warn: (message: string) => warnings.push(message),
    error() {},
  }) as unknown as Logger;

describe('mcp client: a tool whose input schema HubOS cannot compile', () => {
  it('is registered with an open schema (the server checks its input), said once at registration', () => {
    const registry = new Registry();
    const warnings: string[] = [];
    const sync = new ToolSync({
      registry,
      logger: silent(warnings),
      server: 'py',
      prefix: 'py',
      handlerFor: () => () => 'ok',
    });
    // A Python server's named group: valid for its validator, not for a JavaScript RegExp.
    sync.apply([
      {
        name: 'lookup',
        description: 'Looks an id up.',
        inputSchema: { type: 'object', properties: { id: { type: 'string', pattern: '^(?P<id>[a-z]+)$' } } },
      },
    ]);
    expect(registry.checkInput('py_lookup', { id: 'abc' })).toMatchObject({ ok: true });
    expect(registry.checkInput('py_lookup', { id: 42 })).toMatchObject({ ok: true });
    expect(warnings.join('\n')).toContain('"py_lookup" takes any object and the server checks it');
  });
});
