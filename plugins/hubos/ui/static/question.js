// A tool's question (tc.elicit) as a form, built from its schema: text, numbers, yes/no and choices,
// with their defaults and required marks. Classic script: app.js calls questionForm (and h, from it).
// Everything the tool wrote (message, titles, descriptions, choices) is set as text, never as HTML.

let questionCount = 0;

/** A string schema's `format` as an input type the browser checks; others stay plain text. */
const INPUT_FORMATS = { email: 'email', uri: 'url', date: 'date' };

/** A field's choices: `enum` (titled by `enumNames`), or `oneOf` / `anyOf` of `{ const, title }`. */
function fieldChoices(schema) {
  const options = schema.oneOf ?? schema.anyOf;
  if (
    Array.isArray(options) &&
    options.length &&
    options.every((o) => o && typeof o === 'object' && 'const' in o)
  )
    return options.map((o) => ({
      value: o.const,
      label: typeof o.title === 'string' ? o.title : String(o.const),
    }));
  if (!Array.isArray(schema.enum)) return undefined;
  const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
  return schema.enum.map((value, i) => ({
    value,
    label: typeof names[i] === 'string' ? names[i] : String(value),
  }));
}

/** One input for one property; `read()` gives its value, or undefined to leave it out. */
function questionField(id, name, schema, required) {
  const choices = fieldChoices(schema);
  const hint = typeof schema.description === 'string' ? schema.description : '';
  const label = h(
    'label',
    { for: id },
    typeof schema.title === 'string' && schema.title ? schema.title : name,
    required ? h('span', { class: 'required', 'aria-hidden': 'true' }, ' *') : undefined,
  );
  const described = hint ? `${id}-hint` : undefined;
  const common = { id, name: id, required, 'aria-describedby': described };
  let input;
  let read;
  if (choices) {
    input = h(
      'select',
      common,
      ...(required && schema.default === undefined ? [h('option', { value: '' }, 'Choose…')] : []),
      ...(!required ? [h('option', { value: '' }, '—')] : []),
      ...choices.map((choice, i) =>
        h('option', { value: String(i), selected: choice.value === schema.default }, choice.label),
      ),
    );
    read = () => (input.value === '' ? undefined : choices[Number(input.value)].value);
  } else if (schema.type === 'boolean') {
    input = h('input', { ...common, type: 'checkbox', required: false, checked: schema.default === true });
    read = () => input.checked;
  } else if (schema.type === 'number' || schema.type === 'integer') {
    input = h('input', {
      ...common,
      type: 'number',
      step: schema.type === 'integer' ? '1' : 'any',
      min: typeof schema.minimum === 'number' ? String(schema.minimum) : undefined,
      max: typeof schema.maximum === 'number' ? String(schema.maximum) : undefined,
      value: typeof schema.default === 'number' ? String(schema.default) : undefined,
    });
    read = () => (input.value === '' ? undefined : Number(input.value));
  } else if (schema.type === 'string' || schema.type === undefined) {
    input = h('input', {
      ...common,
      type: INPUT_FORMATS[schema.format] ?? 'text',
      autocomplete: 'off',
      minlength: typeof schema.minLength === 'number' ? String(schema.minLength) : undefined,
      maxlength: typeof schema.maxLength === 'number' ? String(schema.maxLength) : undefined,
      value: typeof schema.default === 'string' ? schema.default : undefined,
    });
    read = () => (input.value === '' ? undefined : input.value);
  } else {
    // Outside MCP's flat subset (arrays, objects): typed as JSON.
    input = h('textarea', { ...common, rows: '3', spellcheck: 'false' });
    if (schema.default !== undefined) input.value = JSON.stringify(schema.default);
    read = () => {
      if (input.value.trim() === '') return undefined;
      try {
        return JSON.parse(input.value);
      } catch {
        throw new Error(`"${name}" must be JSON`);
      }
    };
  }
  const node = h(
    'div',
    { class: `field${schema.type === 'boolean' && !choices ? ' check' : ''}` },
    ...(schema.type === 'boolean' && !choices ? [input, label] : [label, input]),
    hint ? h('p', { id: described, class: 'field-hint' }, hint) : undefined,
  );
  return { name, node, input, read };
}

/**
 * The form of a question: its message, a field per property, Submit (answers with the fields) and
 * Decline. `onAnswer(content)` and `onDecline()` send the decision; `disable(on)` while it is sent.
 */
// biome-ignore lint/correctness/noUnusedVariables: app.js calls it (classic scripts share the global scope).
function questionForm(question, onAnswer, onDecline) {
  const id = `question-${++questionCount}`;
  const schema = question?.schema && typeof question.schema === 'object' ? question.schema : {};
  const properties = schema.properties && typeof schema.properties === 'object' ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const fields = Object.entries(properties).map(([name, property], i) =>
    questionField(
      `${id}-${i}`,
      name,
      property && typeof property === 'object' ? property : {},
      required.has(name),
    ),
  );
  const submit = h('button', { type: 'submit', class: 'approve' }, 'Submit');
  const decline = h('button', { type: 'button', class: 'danger deny' }, 'Decline');
  const problem = h('p', { class: 'question-problem', role: 'alert', hidden: true });
  const form = h(
    'form',
    { class: 'question-form', 'aria-label': 'Answer' },
    ...fields.map((field) => field.node),
    problem,
    h('div', { class: 'approval-controls' }, submit, decline),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    // No prototype: a field named "__proto__" is a field like any other.
    const content = Object.create(null);
    try {
      for (const field of fields) {
        const value = field.read();
        if (value !== undefined) content[field.name] = value;
      }
    } catch (error) {
      problem.textContent = error.message;
      problem.hidden = false;
      return;
    }
    problem.hidden = true;
    onAnswer(content);
  });
  decline.addEventListener('click', () => onDecline());
  return {
    node: form,
    message: typeof question?.message === 'string' ? question.message : '',
    focus: () => (fields[0]?.input ?? submit).focus(),
    disable(on) {
      for (const control of [...fields.map((field) => field.input), submit, decline]) control.disabled = on;
    },
  };
}
