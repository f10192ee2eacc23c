/**
 * An input that a tool's JSON Schema accepts, for showing how to call it: the schema's own
 * example or default where it has one, else its required properties with a placeholder of their
 * type (an enum's first value, a number within its bounds, a string of its format and length).
 * Optional properties are left out, so the example is the least one needs to type.
 */
export function exampleFor(schema: unknown, name = 'text', depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 8) return {};
  const s = schema as Record<string, unknown>;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (s.default !== undefined) return s.default;
  const options = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(options) && options.length > 0) return exampleFor(options[0], name, depth + 1);
  if (Array.isArray(s.allOf)) return mergedExample(s.allOf, name, depth);
  switch (typeOf(s)) {
    case 'object':
      return objectExample(s, depth);
    case 'array':
      return arrayExample(s, name, depth);
    case 'string':
      return stringExample(s, name);
    case 'integer':
    case 'number':
      return numberExample(s);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return {};
  }
}

/** Its declared type (the first of several, other than null), or one its keywords imply. */
function typeOf(s: Record<string, unknown>): string | undefined {
  const types = Array.isArray(s.type) ? s.type : [s.type];
  const declared = types.find((type) => typeof type === 'string' && type !== 'null') ?? types[0];
  if (typeof declared === 'string') return declared;
  if (s.properties || s.required) return 'object';
  if (s.items) return 'array';
  return undefined;
}

function objectExample(s: Record<string, unknown>, depth: number): Record<string, unknown> {
  const properties = (s.properties ?? {}) as Record<string, unknown>;
  const required = Array.isArray(s.required) ? (s.required as string[]) : [];
  // No prototype: a property named "__proto__" is a property like any other.
  const example: Record<string, unknown> = Object.create(null);
  for (const key of required) example[key] = exampleFor(properties[key] ?? {}, key, depth + 1);
  return { ...example };
}

function arrayExample(s: Record<string, unknown>, name: string, depth: number): unknown[] {
  const count = Math.max(typeof s.minItems === 'number' ? s.minItems : 1, 0);
  const items = Array.isArray(s.items) ? s.items : [s.items ?? {}];
  const max = typeof s.maxItems === 'number' ? s.maxItems : count;
  return Array.from({ length: Math.min(count, max) }, (_, i) => {
    const item = exampleFor(items[Math.min(i, items.length - 1)], name, depth + 1);
    // Items that must differ (uniqueItems) get a number after the first.
    return s.uniqueItems && i > 0 && typeof item === 'string' ? `${item}${i + 1}` : item;
  });
}

const FORMATS: Record<string, string> = {
  uri: 'https://example.com',
  'uri-reference': 'https://example.com',
  url: 'https://example.com',
  email: 'user@example.com',
  'date-time': '2025-01-01T12:00:00Z',
  date: '2025-01-01',
  time: '12:00:00Z',
  uuid: '00000000-0000-4000-8000-000000000000',
  hostname: 'example.com',
  ipv4: '127.0.0.1',
  ipv6: '::1',
};

/** Strings whose property name says what they hold, so that the example also works when run. */
const BY_NAME: [RegExp, string][] = [
  [/(^|_)(url|uri|href|link)$/i, 'https://example.com'],
  [/(^|_)email$/i, 'user@example.com'],
  [/(^|_)(path|file|filename)$/i, 'notes.txt'],
  [/(^|_)command$/i, 'echo hello'],
];

/** A string of its format, or one its property's name suggests, else the name itself: `{"query": "query"}`. */
function stringExample(s: Record<string, unknown>, name: string): string {
  const format = typeof s.format === 'string' ? FORMATS[s.format] : undefined;
  if (format) return format;
  const hinted = BY_NAME.find(([pattern]) => pattern.test(name))?.[1];
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : Number.POSITIVE_INFINITY;
  const sized = (text: string) => {
    const long = text.padEnd(min, 'x');
    return long.length > max ? long.slice(0, max) : long;
  };
  // A pattern is not solved, only tried against a few likely shapes of the placeholder.
  const candidates = [hinted, name, `/${name}`, name.toUpperCase(), '1', 'a'].filter(
    (text): text is string => text !== undefined,
  );
  return candidates.map(sized).find((text) => fits(text, s)) ?? sized(name);
}

function fits(text: string, s: Record<string, unknown>): boolean {
  if (typeof s.minLength === 'number' && text.length < s.minLength) return false;
  if (typeof s.maxLength === 'number' && text.length > s.maxLength) return false;
  try {
    return typeof s.pattern !== 'string' || new RegExp(s.pattern, 'u').test(text);
  } catch {
    return false;
  }
}

/** 1 when the bounds allow it, else a number inside them (a multiple of `multipleOf` when given). */
function numberExample(s: Record<string, unknown>): number {
  const num = (key: string) => (typeof s[key] === 'number' ? (s[key] as number) : undefined);
  const integer = s.type === 'integer' || (Array.isArray(s.type) && s.type.includes('integer'));
  const step = (num('multipleOf') ?? 0) > 0 ? num('multipleOf')! : integer ? 1 : undefined;
  const [min, exMin, max, exMax] = [
    num('minimum'),
    num('exclusiveMinimum'),
    num('maximum'),
    num('exclusiveMaximum'),
  ];
  const allowed = (value: number) =>
    (min === undefined || value >= min) &&
    (exMin === undefined || value > exMin) &&
    (max === undefined || value <= max) &&
    (exMax === undefined || value < exMax) &&
    (step === undefined || Number.isInteger(Number((value / step).toFixed(9))));
  if (allowed(1)) return 1;
  const low = Math.max(min ?? Number.NEGATIVE_INFINITY, exMin ?? Number.NEGATIVE_INFINITY);
  const high = Math.min(max ?? Number.POSITIVE_INFINITY, exMax ?? Number.POSITIVE_INFINITY);
  if (step !== undefined) {
    const first = Number.isFinite(low) ? Math.ceil(low / step) * step : Math.floor(high / step) * step;
    for (const value of [first, first + step, first - step]) if (allowed(value)) return value;
    return first;
  }
  if (Number.isFinite(low) && Number.isFinite(high)) return (low + high) / 2;
  if (Number.isFinite(low)) return low + 1;
  return high - 1;
}

function mergedExample(parts: unknown[], name: string, depth: number): unknown {
  const examples = parts.map((part) => exampleFor(part, name, depth + 1));
  if (examples.every((example) => typeof example === 'object' && example !== null && !Array.isArray(example)))
    return Object.assign({}, ...examples);
  return examples[0];
}
