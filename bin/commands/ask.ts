import type { ApprovalQuestion } from '../../core/index.ts';

/** Writes a prompt and reads the line typed after it. */
export type ReadLine = (prompt: string) => Promise<string>;

/** What the human did with a tool's question at the terminal. */
export type TerminalAnswer = { approved: true; content: Record<string, unknown> } | { approved: false };

interface Field {
  name: string;
  schema: Record<string, unknown>;
  required: boolean;
}

/** A choice of an enum field: the value sent, and the words shown for it. */
interface Choice {
  value: unknown;
  label: string;
}

const YES = /^(y|yes|true|1)$/i;
const NO = /^(n|no|false|0)$/i;

/**
 * Asks a tool's question (`tc.elicit`) at the terminal: first whether to answer it, then field by
 * field, each with its type, its choices and its default (Enter keeps the default, or leaves an
 * optional field out). A value that cannot be the field's type is asked again; the core checks the
 * whole answer against the schema when it is sent.
 */
export async function askAtTerminal(
  question: ApprovalQuestion,
  tool: string,
  read: ReadLine,
  write: (text: string) => void,
): Promise<TerminalAnswer> {
  write(`? ${tool} asks: ${oneLine(question.message, 500)}\n`);
  const answer = (await read('  answer it? [Y/n] ')).trim();
  if (NO.test(answer)) return { approved: false };
  // No prototype: a field named "__proto__" is a field like any other.
  const content: Record<string, unknown> = Object.create(null);
  for (const field of fieldsOf(question)) {
    const value = await askField(field, read, write);
    if (value !== undefined) content[field.name] = value;
  }
  return { approved: true, content };
}

function fieldsOf(question: ApprovalQuestion): Field[] {
  const schema = question.schema as { properties?: Record<string, unknown>; required?: unknown };
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    schema: typeof property === 'object' && property !== null ? (property as Record<string, unknown>) : {},
    required: required.has(name),
  }));
}

/** Reads one field until what is typed fits its type; undefined leaves it out (its default applies). */
async function askField(field: Field, read: ReadLine, write: (text: string) => void): Promise<unknown> {
  const { schema } = field;
  const choices = choicesOf(schema);
  const title = typeof schema.title === 'string' ? schema.title : field.name;
  if (typeof schema.description === 'string') write(`  ${oneLine(schema.description, 300)}\n`);
  for (const [i, choice] of (choices ?? []).entries()) write(`    ${i + 1}) ${oneLine(choice.label, 100)}\n`);
  const hasDefault = schema.default !== undefined;
  const shownDefault = hasDefault ? ` [${oneLine(labelOf(schema.default, choices), 100)}]` : '';
  const prompt = `  ${oneLine(title, 100)}${field.required ? '*' : ''} (${kindOf(schema, choices)})${shownDefault}: `;
  for (;;) {
    const typed = (await read(prompt)).trim();
    if (typed === '') {
      if (hasDefault || !field.required) return undefined;
      write('    (required)\n');
      continue;
    }
    const parsed = parse(typed, schema, choices);
    if (parsed.ok) return parsed.value;
    write(`    ${parsed.problem}\n`);
  }
}

function choicesOf(schema: Record<string, unknown>): Choice[] | undefined {
  const options = (schema.oneOf ?? schema.anyOf) as unknown;
  if (Array.isArray(options) && options.every((option) => option && 'const' in option))
    return options.map((option: { const: unknown; title?: unknown }) => ({
      value: option.const,
      label: typeof option.title === 'string' ? option.title : String(option.const),
    }));
  const items = schema.enum;
  if (!Array.isArray(items)) return undefined;
  const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
  return items.map((value, i) => ({
    value,
    label: typeof names[i] === 'string' ? (names[i] as string) : String(value),
  }));
}

function kindOf(schema: Record<string, unknown>, choices: Choice[] | undefined): string {
  if (choices) return `1-${choices.length} or a value`;
  const bounds = [
    typeof schema.minimum === 'number' ? `≥ ${schema.minimum}` : '',
    typeof schema.maximum === 'number' ? `≤ ${schema.maximum}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  switch (schema.type) {
    case 'boolean':
      return 'y/n';
    case 'integer':
      return `whole number${bounds ? ` ${bounds}` : ''}`;
    case 'number':
      return `number${bounds ? ` ${bounds}` : ''}`;
    case 'string':
      return typeof schema.format === 'string' ? `text, ${schema.format}` : 'text';
    default:
      return 'JSON';
  }
}

function labelOf(value: unknown, choices: Choice[] | undefined): string {
  const choice = choices?.find((candidate) => candidate.value === value);
  if (choice) return choice.label;
  if (typeof value === 'boolean') return value ? 'y' : 'n';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function parse(
  typed: string,
  schema: Record<string, unknown>,
  choices: Choice[] | undefined,
): { ok: true; value: unknown } | { ok: false; problem: string } {
  if (choices) {
    const index = /^\d+$/.test(typed) ? Number(typed) - 1 : -1;
    const choice =
      choices[index] ??
      choices.find((candidate) => String(candidate.value) === typed || candidate.label === typed);
    return choice
      ? { ok: true, value: choice.value }
      : { ok: false, problem: `pick 1 to ${choices.length}, or type one of the values` };
  }
  switch (schema.type) {
    case 'boolean':
      if (YES.test(typed)) return { ok: true, value: true };
      if (NO.test(typed)) return { ok: true, value: false };
      return { ok: false, problem: 'answer y or n' };
    case 'integer':
    case 'number': {
      const value = Number(typed);
      if (schema.type === 'integer' && !Number.isInteger(value))
        return { ok: false, problem: 'type a whole number' };
      if (!Number.isFinite(value)) return { ok: false, problem: 'type a number' };
      return { ok: true, value };
    }
    case 'string':
      return { ok: true, value: typed };
    default:
      try {
        return { ok: true, value: JSON.parse(typed) };
      } catch {
        return { ok: false, problem: 'type it as JSON' };
      }
  }
}

/** Text from a tool, on one line and cut short: it cannot move the cursor or fill the screen. */
function oneLine(text: string, max: number): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes.
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
