/**
 * Tool input validation: the registry compiles each schema once at registration. Baseline: what
 * compiling per call would cost (a fresh ajv compile of the same schema for every call).
 */
import { Registry } from '../core/index.ts';
import { createAjv } from '../core/json-schema.ts';
import { opsPerSecond, report } from './measure.ts';

const inputSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 1 },
    offset: { type: 'integer', minimum: 0, default: 0 },
    limit: { type: 'integer', minimum: 1, maximum: 10_000, default: 2_000 },
    encoding: { type: 'string', enum: ['utf8', 'base64'], default: 'utf8' },
  },
  required: ['path'],
  additionalProperties: false,
} as const;

const registry = new Registry();
registry.register({ name: 'read', description: 'Reads a file.', inputSchema, handler: () => null });
const input = { path: 'notes/today.md', limit: 100 };

const compiledOnce = await opsPerSecond(() => registry.checkInput('read', input));
const compilePerCall = await opsPerSecond(
  () => createAjv().compile(inputSchema)(structuredClone(input)),
  1_000,
);
report('tool input check (compiled once)', compiledOnce, compilePerCall, 'compiling per call');
