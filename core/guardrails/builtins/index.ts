import type { GuardrailFactory } from '../registry.ts';

/** The built-in guardrails by name, each made from its options. */
export const BUILTIN_GUARDRAILS: ReadonlyMap<string, GuardrailFactory> = new Map();
