// The page's workflow view: lists the served workflows, draws one's steps, runs it and shows each
// step's progress live. A module that runs after app.js and uses its helpers ($, h, request,
// readJsonEvents, approvalView, showView, …): classic scripts leave their declarations in the global scope.

// Where the workflows plugin serves its routes; empty when it is not on (no view then, and no request).
const WORKFLOWS = document.querySelector('meta[name="hubos-workflows"]')?.getAttribute('content') || '';
const WORKFLOW_STORAGE = 'hubos.workflow';
const OUTPUT_LIMIT = 20_000;

const wf = {
  views: $('views'),
  list: $('workflow-list'),
  detail: $('workflow'),
  name: $('workflow-name'),
  description: $('workflow-description'),
  form: $('workflow-form'),
  input: $('workflow-input'),
  fields: $('workflow-fields'),
  error: $('workflow-error'),
  run: $('workflow-run'),
  stop: $('workflow-stop'),
  status: $('workflow-status'),
  steps: $('workflow-steps'),
  result: $('workflow-result'),
  outcome: $('workflow-outcome'),
  output: $('workflow-output'),
};

wf.output.tabIndex = 0; // scrollable: reachable from the keyboard

/** The listed workflows, the one shown and its step nodes by id, the run going, inputs being edited. */
const view = { workflows: [], name: undefined, nodes: new Map(), controller: undefined, drafts: new Map() };

// ---------------------------------------------------------------- helpers

const plural = (count, word, many = `${word}s`) => `${count} ${count === 1 ? word : many}`;
const duration = (ms) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);
const describeError = (error) => `${error?.code ? `${error.code}: ` : ''}${error?.message ?? 'failed'}`;

function say(text) {
  wf.status.textContent = text;
}

function showError(text) {
  wf.error.textContent = text;
  wf.error.hidden = !text;
}

/** A value a schema accepts, or at least names: its default, an example, else an empty one of its type. */
function sample(schema) {
  if (!schema || typeof schema !== 'object') return null;
  if ('default' in schema) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'object' || (!type && schema.properties))
    return Object.fromEntries(
      Object.entries(schema.properties ?? {}).map(([key, sub]) => [key, sample(sub)]),
    );
  if (type === 'array') return [];
  if (type === 'string') return '';
  if (type === 'number' || type === 'integer') return schema.minimum ?? 0;
  if (type === 'boolean') return false;
  return null;
}

/** The input's top-level properties: name, type, required, description. */
function fieldList(schema) {
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  const properties = Object.entries(schema?.properties ?? {});
  if (!properties.length) return [h('li', {}, 'Any JSON object.')];
  return properties.map(([key, sub]) => {
    const type = [sub?.type].flat().filter(Boolean).join(' or ');
    const facts = [type, required.has(key) ? 'required' : 'optional'].filter(Boolean).join(', ');
    return h('li', {}, h('code', {}, key), ` ${facts}`, sub?.description ? ` — ${sub.description}` : '');
  });
}

// ---------------------------------------------------------------- the step tree

/** What a step runs, in words: "asks writer", "2 steps at once". */
function target(step) {
  const code = (text) => h('code', {}, text);
  switch (step.kind) {
    case 'agent':
      return ['asks ', code(step.agent)];
    case 'tool':
      return ['calls ', code(step.tool)];
    case 'stars':
      return ['team ', code(step.team)];
    case 'parallel':
      return [`${plural(step.steps?.length ?? 0, 'step')} at once`];
    case 'loop':
      return [`at most ${plural(step.max, 'pass', 'passes')}`];
    case 'branch':
      return ['if / else'];
    default:
      return [];
  }
}

function limits(step) {
  return [
    step.retries ? plural(step.retries, 'retry', 'retries') : '',
    step.timeoutMs ? `timeout ${duration(step.timeoutMs)}` : '',
    step.continueOnError ? 'continues on error' : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

function drawSteps(steps, list = h('ol', { class: 'steps' })) {
  list.replaceChildren(...steps.map(drawStep));
  return list;
}

/** One step: a row (kind, id, what it runs, state), its description, live details, then its children. */
function drawStep(step) {
  const badge = h('span', { class: 'badge' }, 'pending');
  const textNode = document.createTextNode('');
  const entry = {
    step,
    badge,
    textNode,
    key: undefined,
    approvals: new Map(),
    notes: h('ul', { class: 'step-notes', hidden: true }),
    text: h('div', { class: 'step-text', hidden: true }, textNode),
    output: h('pre', { class: 'step-output', tabindex: '0', hidden: true }),
    error: h('p', { class: 'step-error', hidden: true }),
  };
  const extra = limits(step);
  const arms =
    step.kind === 'branch'
      ? [
          h('p', { class: 'arm' }, 'If the condition holds:'),
          drawSteps(step.steps ?? []),
          h('p', { class: 'arm' }, 'Else:'),
          step.else?.length ? drawSteps(step.else) : h('p', { class: 'arm none' }, 'nothing'),
        ]
      : step.steps
        ? [drawSteps(step.steps)]
        : [];
  entry.node = h(
    'li',
    { class: 'step', 'data-step': step.id, 'data-kind': step.kind, 'data-status': 'pending' },
    h(
      'div',
      { class: 'step-row' },
      h('span', { class: 'kind' }, step.kind),
      h('code', { class: 'step-id' }, step.id),
      h('span', { class: 'target' }, ...target(step)),
      extra ? h('span', { class: 'limits' }, extra) : undefined,
      badge,
    ),
    step.description ? h('p', { class: 'step-description' }, step.description) : undefined,
    entry.notes,
    entry.text,
    entry.output,
    entry.error,
    ...arms,
  );
  view.nodes.set(step.id, entry);
  return entry.node;
}

function setState(entry, status, label) {
  entry.node.dataset.status = status;
  entry.badge.textContent = label;
}

function note(entry, text, kind = '') {
  entry.notes.hidden = false;
  entry.notes.append(h('li', { class: kind }, text));
}

/** Clears what a step showed; a new loop pass also clears its notes and approvals. */
function clearStep(entry, all) {
  entry.textNode.data = '';
  entry.text.hidden = entry.output.hidden = entry.error.hidden = true;
  if (!all) return;
  entry.notes.replaceChildren();
  entry.notes.hidden = true;
  for (const { box } of entry.approvals.values()) box.node.remove();
  entry.approvals.clear();
}

function resetSteps() {
  for (const entry of view.nodes.values()) {
    clearStep(entry, true);
    entry.key = undefined;
    setState(entry, 'pending', 'pending');
  }
  wf.result.hidden = true;
}

// ---------------------------------------------------------------- run events

/** `loop[1]/draft` is the second pass of loop's steps. */
function passOf(key) {
  const passes = [...key.matchAll(/\[(\d+)\]\//g)];
  return passes.length ? `pass ${Number(passes.at(-1)[1]) + 1}` : '';
}

function stepStarted(entry, event) {
  clearStep(entry, entry.key !== event.key);
  entry.key = event.key;
  const attempt = event.attempt > 1 ? `attempt ${event.attempt}` : '';
  setState(entry, 'running', `${['running', passOf(event.key), attempt].filter(Boolean).join(' · ')}…`);
  say(`Step ${event.stepId} is running${event.attempt > 1 ? ` (attempt ${event.attempt})` : ''}.`);
}

function stepFinished(entry, record) {
  // A container's record repeats its failing child's attempts: only retried steps show theirs.
  const attempts = entry.step.retries && record.attempts > 1 ? plural(record.attempts, 'attempt') : '';
  const facts = [passOf(record.key), duration(record.durationMs), attempts].filter(Boolean).join(' · ');
  const label =
    record.status === 'cancelled'
      ? 'cancelled'
      : `${record.status}${record.continued ? ' (went on)' : ''} · ${facts}`;
  setState(entry, record.status, label);
  for (const { item, box } of entry.approvals.values())
    if (item.approval.status === 'pending') {
      // Decided elsewhere: the step's outcome tells which way.
      item.approval.status = record.status === 'completed' ? 'approved' : 'unanswered';
      box.update();
    }
  const { output } = record;
  if (record.status === 'completed' && output !== undefined) {
    if (entry.step.kind === 'branch')
      note(entry, `Took the ${output?.branch === 'then' ? 'if' : 'else'} branch.`);
    else if (entry.step.kind === 'loop')
      note(
        entry,
        `${plural(output?.passes ?? 0, 'pass', 'passes')}, stopped by ${output?.stopped === 'max' ? 'its limit' : 'its condition'}.`,
      );
    // An agent's answer is the text streamed above; a parallel step's is its children's.
    else if (entry.step.kind !== 'parallel' && !(entry.step.kind === 'agent' && entry.textNode.data)) {
      entry.output.textContent = clip(show(output), OUTPUT_LIMIT);
      entry.output.hidden = false;
    }
  }
  if (record.error) {
    entry.error.textContent = describeError(record.error);
    entry.error.hidden = false;
  }
  say(`Step ${record.id} ${record.status}.`);
}

/** A tool call of the step waits for approval, or its tool asks a question: app.js's prompt, reused. */
function approvalAsked(entry, event) {
  const item = { approval: pendingApproval(event) };
  const box = approvalView(item, () => box.update());
  entry.approvals.set(event.callId, { item, box });
  entry.text.before(box.node);
  box.update();
  if (document.activeElement === document.body || document.activeElement === wf.stop) box.focus();
  say(
    event.question
      ? `Step ${entry.step.id}: ${event.tool} asks you a question.`
      : `Step ${entry.step.id} waits for your approval to run ${event.tool}.`,
  );
}

function runFinished(result) {
  for (const entry of view.nodes.values())
    if (entry.node.dataset.status === 'pending') setState(entry, 'skipped', 'not run');
  const took = Date.parse(result.finishedAt) - Date.parse(result.createdAt);
  const tokens = (result.usage?.inputTokens ?? 0) + (result.usage?.outputTokens ?? 0);
  const facts = [Number.isFinite(took) ? `in ${duration(took)}` : '', tokens ? plural(tokens, 'token') : '']
    .filter(Boolean)
    .join(' · ');
  const outcomes = {
    completed: `Completed${facts ? ` ${facts}` : ''}.`,
    failed: `Failed${result.error?.stepId ? ` at step ${result.error.stepId}` : ''}: ${describeError(result.error)}`,
    cancelled: 'Cancelled.',
  };
  showOutcome(result.status, outcomes[result.status] ?? result.status);
  if (result.status === 'completed') {
    wf.output.textContent =
      result.output === undefined ? '(no output)' : clip(show(result.output), OUTPUT_LIMIT);
    wf.output.hidden = false;
  }
  say(`The workflow ${result.status === 'completed' ? 'completed' : result.status}.`);
}

function showOutcome(status, text) {
  wf.result.hidden = false;
  wf.result.dataset.status = status;
  wf.outcome.textContent = text;
  wf.output.hidden = true;
}

function handle(type, event) {
  const entry = view.nodes.get(event.stepId);
  switch (type) {
    case 'workflow-start':
      say(`Running ${event.workflow}…`);
      return;
    case 'workflow-finish':
      runFinished(event.result);
      return;
    case 'error':
      throw new ApiError(event.error?.code ?? 'WORKFLOW_FAILED', event.error?.message ?? 'the run failed');
  }
  if (!entry) return;
  switch (type) {
    case 'workflow-step-start':
      stepStarted(entry, event);
      break;
    case 'workflow-step-error':
      note(
        entry,
        `Attempt ${event.attempt} failed: ${describeError(event.error)}${event.willRetry ? ' — retrying' : ''}`,
        'attempt-failed',
      );
      if (event.willRetry) setState(entry, 'retrying', `attempt ${event.attempt} failed, retrying…`);
      break;
    case 'workflow-step-finish':
      stepFinished(entry, event.record);
      break;
    case 'text-delta':
      // A team's members all stream; the leader's text is the team's answer.
      if (event.role && event.role !== 'leader') break;
      entry.textNode.appendData(event.delta);
      entry.text.hidden = false;
      break;
    case 'tool-result':
      note(entry, `Tool ${event.call.name}: ${event.call.ok ? 'done' : describeError(event.call.error)}`);
      break;
    case 'stars-delegation':
      note(entry, `${event.member} asked ${event.worker}: ${oneLine(event.task)}`);
      break;
    case 'approval-request':
      approvalAsked(entry, event);
      break;
    case 'approval-result': {
      const asked = entry.approvals.get(event.callId);
      if (!asked) break;
      Object.assign(asked.item.approval, {
        status: event.status,
        reason: event.reason,
        answer: event.answer,
      });
      asked.box.update();
      break;
    }
  }
}

// ---------------------------------------------------------------- running

function setRunning(running) {
  const focused = document.activeElement;
  wf.run.hidden = running;
  wf.stop.hidden = !running;
  wf.input.readOnly = running;
  for (const button of wf.list.querySelectorAll('button')) button.disabled = running;
  wf.steps.setAttribute('aria-busy', String(running));
  // Keep the keyboard where it was: on whichever of Run / Stop is now shown.
  if (focused === wf.run || focused === wf.stop || focused === document.body)
    (running ? wf.stop : wf.run).focus();
}

async function run(name, input) {
  const controller = new AbortController();
  view.controller = controller;
  showError('');
  resetSteps();
  setRunning(true);
  say(`Starting ${name}…`);
  let finished = false;
  try {
    const response = await request(`${WORKFLOWS}/${encodeURIComponent(name)}/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ input }),
      signal: controller.signal,
    });
    if (!response.ok) throw await responseError(response);
    for await (const { event, data } of readJsonEvents(response.body)) {
      handle(event, data);
      if (event === 'workflow-finish') finished = true;
    }
    if (!finished && !controller.signal.aborted)
      throw new ApiError('STREAM_ENDED', 'the connection closed before the workflow finished');
  } catch (error) {
    if (controller.signal.aborted) {
      showOutcome('cancelled', 'Stopped: the server cancels the run.');
      say('Stopped.');
    } else {
      const message =
        error instanceof ApiError ? error.message : `could not reach the server: ${error.message}`;
      showError(`${error.code ?? 'NETWORK_ERROR'}: ${message}`);
      if (error.status === 400) wf.input.setAttribute('aria-invalid', 'true');
      say('The workflow did not run to its end.');
    }
  } finally {
    for (const entry of view.nodes.values()) {
      if (entry.node.dataset.status === 'running' || entry.node.dataset.status === 'retrying')
        setState(entry, 'cancelled', 'stopped');
      for (const { item, box } of entry.approvals.values())
        if (item.approval.status === 'pending') {
          item.approval.status = 'unanswered';
          box.update();
        }
    }
    if (view.controller === controller) view.controller = undefined;
    setRunning(false);
  }
}

wf.form.addEventListener('submit', (event) => {
  event.preventDefault();
  if (!view.name || view.controller) return;
  let input = {};
  try {
    if (wf.input.value.trim()) input = JSON.parse(wf.input.value);
  } catch (error) {
    showError(`The input is not valid JSON: ${error.message}`);
    wf.input.setAttribute('aria-invalid', 'true');
    wf.input.focus();
    return;
  }
  wf.input.removeAttribute('aria-invalid');
  void run(view.name, input);
});

wf.input.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    wf.form.requestSubmit();
  }
});

wf.stop.addEventListener('click', () => view.controller?.abort());
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && state.view === 'workflows' && view.controller && !el.keyDialog.open)
    view.controller.abort();
});

// ---------------------------------------------------------------- picking a workflow

async function select(name) {
  if (view.controller) return;
  // Run is enabled once a workflow is loaded: only then is the input its own.
  if (view.name && !wf.run.disabled) view.drafts.set(view.name, wf.input.value);
  view.name = name;
  storage('local')?.setItem(WORKFLOW_STORAGE, name);
  for (const button of wf.list.querySelectorAll('button'))
    if (button.dataset.workflow === name) button.setAttribute('aria-current', 'true');
    else button.removeAttribute('aria-current');
  const listed = view.workflows.find((workflow) => workflow.name === name);
  wf.detail.hidden = false;
  wf.name.textContent = name;
  wf.description.textContent = listed?.description || 'No description.';
  wf.run.disabled = true;
  showError('');
  wf.result.hidden = true;
  say('');
  view.nodes.clear();
  wf.steps.replaceChildren(h('li', { class: 'none' }, 'Loading…'));
  let shape;
  try {
    const response = await request(`${WORKFLOWS}/${encodeURIComponent(name)}`, {
      headers: { accept: 'application/json' },
    });
    if (!response.ok) throw await responseError(response);
    shape = await response.json();
  } catch (error) {
    if (view.name !== name) return;
    wf.steps.replaceChildren();
    wf.fields.replaceChildren();
    wf.input.value = '';
    showError(`${error.code ?? 'NETWORK_ERROR'}: could not load the workflow: ${error.message}`);
    return;
  }
  if (view.name !== name) return; // another one was picked meanwhile
  drawSteps(shape.steps ?? [], wf.steps);
  wf.fields.replaceChildren(...fieldList(shape.inputSchema));
  wf.input.value = view.drafts.get(name) ?? JSON.stringify(sample(shape.inputSchema) ?? {}, null, 2);
  wf.input.removeAttribute('aria-invalid');
  wf.run.disabled = false;
}

function renderList() {
  wf.list.replaceChildren(
    ...view.workflows.map((workflow) => {
      const button = h(
        'button',
        { type: 'button', class: 'workflow-pick', 'data-workflow': workflow.name },
        h('span', { class: 'workflow-pick-name' }, workflow.name),
        h('span', { class: 'workflow-pick-facts' }, plural(workflow.steps, 'step')),
        workflow.description ? h('span', { class: 'workflow-pick-facts' }, workflow.description) : undefined,
      );
      button.addEventListener('click', () => select(workflow.name));
      return h('li', {}, button);
    }),
  );
}

/** Opens the view on the workflow asked for, else the last one picked, else the first. */
function openView(wanted) {
  showView('workflows');
  if (view.name && !wanted) return;
  const names = view.workflows.map((workflow) => workflow.name);
  const stored = storage('local')?.getItem(WORKFLOW_STORAGE);
  void select([wanted, stored].find((name) => names.includes(name)) ?? names[0]);
}

async function loadWorkflows() {
  if (!WORKFLOWS) return;
  try {
    const response = await request(WORKFLOWS, { headers: { accept: 'application/json' } });
    if (!response.ok) throw await responseError(response);
    const { workflows } = await response.json();
    view.workflows = Array.isArray(workflows) ? workflows : [];
  } catch {
    return; // no view then: the agents' list already reports a server or key problem
  }
  if (!view.workflows.length) return;
  renderList();
  wf.views.hidden = false;
  document.querySelector('[data-show-view="workflows"]').hidden = false;
  const wanted = new URLSearchParams(location.search).get('workflow');
  if (wanted) openView(wanted);
}

document.querySelector('[data-show-view="workflows"]').addEventListener('click', () => openView());
void loadWorkflows();
