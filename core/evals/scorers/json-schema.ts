import { describeErrors, SchemaCompilers } from '../../json-schema.ts';
import type { Scorer } from '../experiment.ts';
import { onlyOptions, score } from './define-scorer.ts';

const compilers = new SchemaCompilers();

/** `json-schema`: the answer, parsed as JSON (a ```json fence around it allowed), fits `expected.schema`. */
export function jsonSchemaScorer(options: Record<string, unknown> = {}): Scorer {
  onlyOptions('json-schema', options, []);
  const checks = new WeakMap<object, ReturnType<SchemaCompilers['compile']>>();
  return {
    name: 'json-schema',
    score({ case: item, output }) {
      const schema = item.expected?.schema;
      if (schema === undefined) return undefined;
      const parsed = parseAnswer(output);
      if (!parsed.ok) return score(0, `the answer is not JSON (${parsed.problem})`);
      if (typeof schema === 'boolean')
        return schema ? score(1, 'any JSON fits') : score(0, 'the schema is false: nothing fits');
      let check = checks.get(schema);
      if (!check) {
        check = compilers.compile(schema);
        checks.set(schema, check);
      }
      if (check(parsed.value)) return score(1, 'the answer fits the schema');
      return score(
        0,
        describeErrors(check.errors, parsed.value, { whole: 'the answer', key: 'property' }).join('; '),
      );
    },
  };
}

function parseAnswer(output: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(output);
  const text = fenced ? (fenced[1] as string) : output;
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, problem: (error as Error).message };
  }
}
