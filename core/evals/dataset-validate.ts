import type { Message } from '../agent/messages.ts';
import { didYouMean } from '../closest-name.ts';
import { SchemaCompilers } from '../json-schema.ts';
import { type CaseSource, datasetError } from './dataset-error.ts';
import type { CaseExpectations, EvalCase, ScorerSpec } from './experiment.ts';
import { parsePattern } from './scorers/pattern.ts';

const CASE_KEYS = ['id', 'input', 'sessionId', 'expected', 'tags', 'metadata'];
const EXPECTED_KEYS = [
  'output',
  'contains',
  'pattern',
  'schema',
  'tools',
  'criteria',
  'maxLatencyMs',
  'maxSteps',
  'maxTokens',
  'maxCost',
];
const BUDGETS = ['maxLatencyMs', 'maxSteps', 'maxTokens', 'maxCost'] as const;
const MATCHES = ['exact', 'ordered', 'unordered'];
const ROLES = ['user', 'assistant', 'tool'];

const schemas = new SchemaCompilers();

/** Deeper than this a case is refused: its JSON is hashed, stored and shown by code that recurses. */
const MAX_CASE_DEPTH = 64;

/** How deep `value` nests, counted without recursion (a line of 10,000 brackets must not overflow the stack). */
function depthOf(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks one case as read from a dataset and returns it typed; throws DATASET_INVALID naming the
 * file, line and field and saying what would be right. `place` (from 1) is its default id.
 */
export function validateCase(value: unknown, source: CaseSource, place: number): EvalCase {
  const fail = (field: string | undefined, problem: string) => datasetError(source, field, problem);
  if (!isObject(value))
    throw fail(
      undefined,
      `a case is an object like {"input": "hello", "expected": {"contains": "hi"}}, got ${kind(value)}`,
    );
  if (depthOf(value, MAX_CASE_DEPTH) > MAX_CASE_DEPTH)
    throw fail(undefined, `nests more than ${MAX_CASE_DEPTH} levels deep: flatten its metadata or schema`);
  for (const key of Object.keys(value))
    if (!CASE_KEYS.includes(key))
      throw fail(key, `unknown field${didYouMean(key, CASE_KEYS)} (a case has: ${CASE_KEYS.join(', ')})`);
  const out: EvalCase = { input: checkInput(value.input, fail) };
  if (value.id !== undefined) {
    if (typeof value.id !== 'string' || value.id === '' || value.id.length > 200)
      throw fail('id', `must be a text of 1 to 200 characters, got ${kind(value.id)}`);
    out.id = value.id;
  } else out.id = String(place);
  if (value.sessionId !== undefined) {
    if (typeof value.sessionId !== 'string' || value.sessionId === '')
      throw fail('sessionId', `must be a non-empty text, got ${kind(value.sessionId)}`);
    out.sessionId = value.sessionId;
  }
  if (value.expected !== undefined) out.expected = checkExpected(value.expected, fail);
  if (value.tags !== undefined) {
    if (!Array.isArray(value.tags) || !value.tags.every((tag) => typeof tag === 'string'))
      throw fail('tags', `must be a list of texts (["smoke", "billing"]), got ${kind(value.tags)}`);
    out.tags = [...value.tags];
  }
  if (value.metadata !== undefined) {
    if (!isObject(value.metadata)) throw fail('metadata', `must be an object, got ${kind(value.metadata)}`);
    out.metadata = value.metadata;
  }
  return out;
}

type Fail = (field: string | undefined, problem: string) => Error;

function checkInput(input: unknown, fail: Fail): string | Message[] {
  if (input === undefined)
    throw fail('input', 'is missing: give the user\'s message, e.g. "input": "What is 2+2?"');
  if (typeof input === 'string') {
    if (input.trim() === '') throw fail('input', "is empty: give the user's message");
    return input;
  }
  if (!Array.isArray(input) || input.length === 0)
    throw fail('input', `must be a text or a non-empty list of messages, got ${kind(input)}`);
  input.forEach((message, i) => {
    const field = `input[${i}]`;
    if (!isObject(message) || typeof message.role !== 'string' || !ROLES.includes(message.role))
      throw fail(
        field,
        `a message is {"role": "user" | "assistant" | "tool", "content": "..."}, got ${kind(message)}`,
      );
    if (typeof message.content !== 'string')
      throw fail(`${field}.content`, `must be a text, got ${kind(message.content)}`);
    if (
      message.role === 'tool' &&
      (typeof message.toolCallId !== 'string' || typeof message.name !== 'string')
    )
      throw fail(field, 'a tool message needs "toolCallId" and "name" (the call it answers)');
  });
  const last = input[input.length - 1] as { role: string; content: string };
  if (last.role !== 'user' || last.content.trim() === '')
    throw fail(
      `input[${input.length - 1}]`,
      "the last message must be the user's, with text: the ones before it are the conversation so far",
    );
  return input as Message[];
}

function checkExpected(expected: unknown, fail: Fail): CaseExpectations {
  if (!isObject(expected))
    throw fail('expected', `must be an object like {"contains": "Paris"}, got ${kind(expected)}`);
  for (const key of Object.keys(expected))
    if (!EXPECTED_KEYS.includes(key))
      throw fail(
        `expected.${key}`,
        `unknown expectation${didYouMean(key, EXPECTED_KEYS)} (known: ${EXPECTED_KEYS.join(', ')})`,
      );
  const { output, contains, pattern, schema, tools, criteria } = expected;
  if (output !== undefined && typeof output !== 'string')
    throw fail('expected.output', `must be a text, got ${kind(output)}`);
  if (
    contains !== undefined &&
    typeof contains !== 'string' &&
    !(Array.isArray(contains) && contains.length > 0 && contains.every((item) => typeof item === 'string'))
  )
    throw fail('expected.contains', `must be a text or a non-empty list of texts, got ${kind(contains)}`);
  if (pattern !== undefined) {
    if (typeof pattern !== 'string') throw fail('expected.pattern', `must be a text, got ${kind(pattern)}`);
    try {
      parsePattern(pattern);
    } catch (error) {
      throw fail(
        'expected.pattern',
        `is not a valid regular expression (${(error as Error).message}): write one like "^\\\\d+$" or "/yes/i"`,
      );
    }
  }
  if (schema !== undefined) {
    if (!isObject(schema) && typeof schema !== 'boolean')
      throw fail('expected.schema', `must be a JSON Schema object, got ${kind(schema)}`);
    const problems = isObject(schema) ? schemas.problemsOf(schema) : undefined;
    if (problems) throw fail('expected.schema', `is not a valid JSON Schema: ${problems}`);
  }
  if (tools !== undefined) checkTools(tools, fail);
  if (criteria !== undefined && (typeof criteria !== 'string' || criteria.trim() === ''))
    throw fail('expected.criteria', `must be a non-empty text, got ${kind(criteria)}`);
  for (const budget of BUDGETS) {
    const value = expected[budget];
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 0))
      throw fail(`expected.${budget}`, `must be a number of 0 or more, got ${kind(value)}`);
  }
  return expected as CaseExpectations;
}

function checkTools(tools: unknown, fail: Fail): void {
  if (!isObject(tools) || !Array.isArray(tools.calls))
    throw fail(
      'expected.tools',
      `must be {"calls": ["search", {"name": "fetch", "input": {"url": "..."}}], "match"?: "exact" | "ordered" | "unordered"}, got ${kind(tools)}`,
    );
  for (const key of Object.keys(tools))
    if (key !== 'calls' && key !== 'match')
      throw fail(
        `expected.tools.${key}`,
        `unknown field${didYouMean(key, ['calls', 'match'])} (known: calls, match)`,
      );
  tools.calls.forEach((call, i) => {
    if (typeof call === 'string' && call !== '') return;
    if (
      isObject(call) &&
      typeof call.name === 'string' &&
      call.name !== '' &&
      (call.input === undefined || isObject(call.input))
    )
      return;
    throw fail(
      `expected.tools.calls[${i}]`,
      `a call is a tool's name or {"name": "...", "input"?: {...}} (the arguments it must have), got ${kind(call)}`,
    );
  });
  if (tools.match !== undefined && !MATCHES.includes(tools.match as string))
    throw fail('expected.tools.match', `must be one of ${MATCHES.join(', ')}, got ${kind(tools.match)}`);
}

/** A dataset's `thresholds`: scorer names to a minimum mean in [0, 1]. */
export function checkThresholds(value: unknown, source: CaseSource): Record<string, number> {
  if (!isObject(value))
    throw datasetError(source, 'thresholds', `must be an object like {"contains": 0.9}, got ${kind(value)}`);
  for (const [name, min] of Object.entries(value))
    if (typeof min !== 'number' || !(min >= 0 && min <= 1))
      throw datasetError(source, `thresholds.${name}`, `must be a number from 0 to 1, got ${kind(min)}`);
  return value as Record<string, number>;
}

/** A dataset's `scorers`: names, `{ use, ...options }` or scorer objects (resolved when evaluated). */
export function checkScorerSpecs(value: unknown, source: CaseSource): ScorerSpec[] {
  if (!Array.isArray(value))
    throw datasetError(
      source,
      'scorers',
      `must be a list like ["contains", {"use": "judge", "rubric": "..."}], got ${kind(value)}`,
    );
  value.forEach((spec, i) => {
    const ok =
      (typeof spec === 'string' && spec !== '') ||
      (isObject(spec) &&
        ((typeof spec.use === 'string' && spec.use !== '') ||
          (typeof spec.name === 'string' && typeof spec.score === 'function')));
    if (!ok)
      throw datasetError(
        source,
        `scorers[${i}]`,
        `a scorer is a name ("contains"), {"use": "judge", ...options} or an object with a name and score(), got ${kind(spec)}`,
      );
  });
  return value as ScorerSpec[];
}

/** What a value is, for an error: its type, and a short JSON of it. */
export function kind(value: unknown): string {
  if (value === undefined) return 'nothing';
  const type = value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) return type;
  return `${type} ${text.length > 60 ? `${text.slice(0, 60)}…` : text}`;
}
