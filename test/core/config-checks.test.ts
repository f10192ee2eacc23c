import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_CHECKS } from '../../core/config-checks.generated.ts';
import { CORE_CONFIG_SCHEMA, type OwnedKey, validateConfig } from '../../core/config-schema.ts';
import type { JSONSchemaObject } from '../../core/index.ts';
import { hubos } from '../../plugins/index.ts';
import { configChecksModule, GENERATED_FILE } from '../../scripts/config-checks.ts';

describe('the config checks compiled ahead of time', () => {
  it('are what the installed ajv makes of the current schemas (else: node scripts/config-checks.ts)', () => {
    expect(readFileSync(GENERATED_FILE, 'utf8')).toBe(configChecksModule());
  });

  it("cover every core key and the always-on plugins' keys", () => {
    const server = hubos().configSchema!.server!;
    for (const schema of [...Object.values(CORE_CONFIG_SCHEMA), server])
      expect(CONFIG_CHECKS.has(JSON.stringify(schema))).toBe(true);
  });

  it('report problems by their path in the config, with the key prefixed', () => {
    const owned = new Map([['server', { owner: 'hubos', schema: hubos().configSchema!.server! }]]);
    expect(() =>
      validateConfig({ server: { port: 'eighty' }, agents: { 'a b': {} } }, owned, 'agent.config.ts'),
    ).toThrow(
      /"agents" property name must be valid[\s\S]*"server\.port" must be integer, got string "eighty"/,
    );
  });

  it("compile a schema they do not have (a third-party plugin's), and apply its defaults", () => {
    const schema: JSONSchemaObject = {
      type: 'object',
      properties: { units: { enum: ['metric', 'imperial'], default: 'metric' } },
    };
    const owned = new Map<string, OwnedKey>([['weather', { owner: 'weather', schema: { ...schema } }]]);
    expect(CONFIG_CHECKS.has(JSON.stringify(schema))).toBe(false);
    expect(validateConfig({ weather: {} }, owned, undefined)).toEqual({ weather: { units: 'metric' } });
    expect(() => validateConfig({ weather: { units: 'kelvin' } }, owned, undefined)).toThrow(
      '"weather.units" must be one of "metric", "imperial", got string "kelvin"',
    );
  });
});
