// The trace waterfall of a run: its steps on one time axis, a bar each, child tracks (sub-agents,
// Stars members) grouped under their label, workflow steps nested by their key. Built off-document
// in a DocumentFragment and written once; bar places are CSS percentages, so no layout is read.
// Every text from the run (inputs, outputs, errors) goes in as text, never as markup.

import { brief, cost, describeError, duration, plural, tokens } from './studio-format.js';

/** document.createElement with attributes and children (strings become text nodes). */
function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const name in attributes) {
    const value = attributes[name];
    if (value === undefined || value === false) continue;
    if (name === 'class') node.className = value;
    else node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) if (child !== undefined && child !== null && child !== '') node.append(child);
  return node;
}

const ms = (iso) => Date.parse(iso);

/** The time axis: from the run's start (or its first step) to its end (or its last step, or now). */
export function timeAxis(steps, record) {
  let start = ms(record?.startedAt ?? record?.createdAt);
  let end = ms(record?.finishedAt);
  for (const step of steps) {
    const from = ms(step.startedAt);
    const to = step.finishedAt ? ms(step.finishedAt) : from + (step.durationMs ?? 0);
    if (!(start <= from)) start = from;
    if (!(end >= to)) end = to;
  }
  if (!Number.isFinite(start)) start = Date.now();
  if (!Number.isFinite(end) || end <= start) end = start + 1;
  return { start, span: end - start };
}

/** The tracks of the steps: the run's own loop (key ''), then each child track by its run id. */
function tracksOf(steps) {
  const tracks = new Map([['', { key: '', steps: [], children: [] }]]);
  for (const step of steps) {
    const key = step.track?.runId ?? '';
    let track = tracks.get(key);
    if (!track) {
      track = { key, info: step.track, steps: [], children: [] };
      tracks.set(key, track);
    }
    track.steps.push(step);
  }
  // A member run more than once (a leader plans, then sums up): each run is a turn of its own.
  const turns = new Map();
  for (const track of tracks.values()) {
    if (!track.key) continue;
    if (track.info.kind === 'member') {
      const turn = (turns.get(track.info.label) ?? 0) + 1;
      turns.set(track.info.label, turn);
      if (turn > 1) track.turn = turn;
    }
    const parent = tracks.get(track.info.parentRunId ?? '') ?? tracks.get('');
    parent.children.push(track);
  }
  return tracks.get('');
}

/**
 * A track's steps and child groups in the order they started (steps are recorded as they end: a
 * workflow's loop after its passes), a group right after the `task` call that started it.
 */
function ordered(track) {
  const items = track.steps.map((step) => ({ at: ms(step.startedAt), seq: step.seq, step }));
  for (const child of track.children) {
    const from = child.info.callId && track.steps.find((step) => step.callId === child.info.callId);
    const first = child.steps[0];
    items.push(
      from
        ? { at: ms(from.startedAt), seq: from.seq + 0.5, track: child }
        : { at: ms(first.startedAt), seq: first.seq - 0.5, track: child },
    );
  }
  return items.sort((a, b) => a.at - b.at || holds(b.step, a.step) - holds(a.step, b.step) || a.seq - b.seq);
}

/**
 * 1 when workflow step `outer` holds `inner` (`passes` holds `passes[0]/draft` and `passes[1]?`):
 * started in the same millisecond, the loop still comes before its passes, though recorded after them.
 */
function holds(outer, inner) {
  if (!outer || !inner || outer.kind !== 'step' || (inner.kind !== 'step' && inner.kind !== 'decision'))
    return 0;
  const rest = inner.name.slice(outer.name.length);
  return inner.name.startsWith(outer.name) && /^[[/?]/.test(rest) ? 1 : 0;
}

/** Where a workflow step sits in its workflow: `passes[1]/draft` is one in, as is a condition (`passes[1]?`). */
function depthOf(step) {
  if (step.kind !== 'step' && step.kind !== 'decision') return 0;
  return step.name.split('/').length - 1 + (step.kind === 'decision' ? 1 : 0);
}

/** The facts of a step, in words, as a list of short strings. */
export function stepFacts(step, context = {}) {
  const facts = [];
  if (step.kind === 'model') {
    if (step.firstTokenMs !== undefined) facts.push(`TTFT ${duration(step.firstTokenMs)}`);
    const usage = step.usage;
    if (usage) {
      facts.push(`${tokens(usage.inputTokens ?? 0)} in`, `${tokens(usage.outputTokens ?? 0)} out`);
      if (usage.cachedInputTokens) facts.push(`${tokens(usage.cachedInputTokens)} cached`);
    }
    if (step.cost !== undefined) facts.push(cost(step.cost));
    if (step.finishReason) facts.push(step.finishReason);
    facts.push(...retryFacts(step.retries ?? []));
  } else if (step.kind === 'compaction' && step.detail) {
    // Older turns summarized before the model call: how much the request shrank.
    const { tokensBefore, tokensAfter, through } = step.detail;
    facts.push(
      `${tokens(tokensBefore ?? 0)} → ${tokens(tokensAfter ?? 0)}`,
      `${through} messages summarized`,
    );
  } else if (step.kind === 'tool') {
    if (step.permission)
      facts.push(`${step.permission.decision}${step.permission.rule ? ` (${step.permission.rule})` : ''}`);
    const approval = step.approval ?? approvalOf(context.approvals?.get(step.callId));
    if (approval) facts.push(approvalWords(approval));
  }
  facts.push(...guardrailFacts(step.guardrails ?? []));
  return facts;
}

/** A model call's retries and failovers: how many retries, and each failover in words. */
function retryFacts(retries) {
  const failovers = retries.filter((retry) => retry.next !== retry.model);
  const again = retries.length - failovers.length;
  return [
    ...(again > 0 ? [`${again} ${again === 1 ? 'retry' : 'retries'}`] : []),
    ...failovers.map((retry) => `failed over from ${retry.model} to ${retry.next}`),
  ];
}

/** One retry as a line of the step's detail: what failed, why, and what came next. */
function retryLine(retry) {
  const why = `${retry.reason.code}${retry.reason.status ? ` ${retry.reason.status}` : ''}: ${retry.reason.message}`;
  const then =
    retry.next === retry.model ? `retried after ${duration(retry.delayMs)}` : `failed over to ${retry.next}`;
  return `${retry.model} attempt ${retry.attempt}: ${why} — ${then}`;
}

/** What guardrails said in a step: each redaction or trip in words, the passes counted. */
function guardrailFacts(verdicts) {
  const said = verdicts
    .filter((verdict) => verdict.action !== 'pass')
    .map(
      (verdict) =>
        `${verdict.guardrail} ${verdict.action === 'trip' ? 'tripped on' : 'rewrote'} the ${verdict.stage}${verdict.reason ? `: ${verdict.reason}` : ''}`,
    );
  const passed = verdicts.length - said.length;
  if (passed > 0) said.push(`${passed} guardrail check${passed === 1 ? '' : 's'} passed`);
  return said;
}

/** An approval record (GET /runs/:id/approvals) in the shape of a step's `approval`. */
function approvalOf(record) {
  if (!record || record.status === 'pending') return undefined;
  return {
    approved: record.status === 'approved',
    status: record.status,
    by: record.decidedBy,
    at: record.decidedAt,
    question: Boolean(record.question),
    reason: record.reason,
  };
}

function approvalWords(approval) {
  const what = approval.question
    ? approval.approved
      ? 'answered'
      : 'declined'
    : approval.approved
      ? 'approved'
      : (approval.status ?? 'denied');
  const at = approval.at ? new Date(approval.at).toLocaleTimeString() : '';
  return [what, approval.by ? `by ${approval.by}` : '', at ? `at ${at}` : ''].filter(Boolean).join(' ');
}

/** The previews of a step: its own (`preview`), else what the run's record kept of its tool call. */
export function previewsOf(step, context = {}) {
  if (step.preview) return step.preview;
  const call = step.callId ? context.toolCalls?.get(step.callId) : undefined;
  if (step.kind === 'tool' && call)
    return {
      input: brief(call.input, 240),
      ...(call.ok && call.output !== undefined ? { output: brief(call.output, 240) } : {}),
    };
  if (step.kind === 'step' && step.detail?.output !== undefined)
    return { output: brief(step.detail.output, 240) };
  return undefined;
}

function bar(step, axis) {
  const from = ms(step.startedAt);
  const took = step.durationMs ?? 0;
  const node = el('span', { class: 'trace-bar', 'aria-hidden': 'true' });
  node.style.setProperty('--at', `${(((from - axis.start) / axis.span) * 100).toFixed(3)}%`);
  node.style.setProperty('--span', `${((took / axis.span) * 100).toFixed(3)}%`);
  return node;
}

let rowCount = 0;

function stepRow(step, depth, axis, context) {
  const id = `trace-${++rowCount}`;
  const status = step.running ? 'running' : step.status;
  const facts = stepFacts(step, context);
  const previews = previewsOf(step, context);
  const kind = step.kind === 'step' ? 'workflow step' : step.kind === 'decision' ? 'condition' : step.kind;
  const open = el(
    'button',
    {
      type: 'button',
      class: 'trace-open',
      'aria-expanded': 'false',
      'aria-controls': `${id}-detail`,
    },
    el('span', { class: 'trace-kind' }, kind),
    el('span', { class: 'trace-name' }, step.name),
    el('span', { class: 'trace-took' }, step.running ? 'running' : duration(step.durationMs)),
  );
  const row = el(
    'li',
    {
      class: 'trace-row',
      'data-seq': String(step.seq),
      'data-kind': step.kind,
      'data-status': status,
      ...(step.callId ? { 'data-call': step.callId } : {}),
    },
    el(
      'div',
      { class: 'trace-label' },
      open,
      facts.length ? el('span', { class: 'trace-facts' }, facts.join(' · ')) : '',
    ),
    el('div', { class: 'trace-lane' }, bar(step, axis)),
  );
  if (depth) row.style.setProperty('--depth', String(depth));
  if (previews?.input !== undefined || previews?.output !== undefined)
    row.append(
      el(
        'dl',
        { class: 'trace-preview' },
        ...(previews.input !== undefined ? [el('dt', {}, 'in'), el('dd', {}, previews.input)] : []),
        ...(previews.output !== undefined
          ? [el('dt', {}, step.kind === 'model' ? 'said' : 'out'), el('dd', {}, previews.output)]
          : []),
      ),
    );
  if (step.error) row.append(el('p', { class: 'trace-error' }, describeError(step.error)));
  const extra = context.extra?.(step);
  if (extra) row.append(extra);
  row.append(el('div', { class: 'trace-detail', id: `${id}-detail`, hidden: true }));
  return row;
}

function groupRow(track, depth, axis, context) {
  const steps = track.steps;
  const first = Math.min(...steps.map((s) => ms(s.startedAt)));
  const last = Math.max(...steps.map((s) => ms(s.startedAt) + (s.durationMs ?? 0)));
  let input = 0;
  let output = 0;
  for (const step of steps) {
    input += step.usage?.inputTokens ?? 0;
    output += step.usage?.outputTokens ?? 0;
  }
  const kind = track.info.kind === 'member' ? 'member' : 'sub-agent';
  const facts = [
    plural(steps.length, 'step'),
    duration(last - first),
    `${tokens(input)} in`,
    `${tokens(output)} out`,
  ];
  const list = el('ol', { class: 'trace', 'aria-label': track.info.label });
  list.append(rowsOf(track, depth + 1, axis, context));
  const node = el(
    'li',
    { class: 'trace-group', 'data-track': track.key, 'data-track-kind': track.info.kind },
    el(
      'div',
      { class: 'trace-group-head' },
      el(
        'div',
        { class: 'trace-label' },
        el('span', { class: 'trace-kind' }, kind),
        el('span', { class: 'trace-name' }, track.info.label),
        track.turn ? el('span', { class: 'trace-turn' }, `turn ${track.turn}`) : '',
        el('span', { class: 'trace-facts' }, facts.join(' · ')),
      ),
      el(
        'div',
        { class: 'trace-lane' },
        bar({ startedAt: new Date(first).toISOString(), durationMs: last - first }, axis),
      ),
    ),
    list,
  );
  if (depth) node.style.setProperty('--depth', String(depth));
  return node;
}

function rowsOf(track, depth, axis, context) {
  const fragment = document.createDocumentFragment();
  for (const item of ordered(track))
    fragment.append(
      item.step
        ? stepRow(item.step, depth + depthOf(item.step), axis, context)
        : groupRow(item.track, depth, axis, context),
    );
  return fragment;
}

/**
 * The trace's rows for `steps` (RunStep records, or the live ones), as a fragment for an `ol.trace`.
 * context: toolCalls (callId → the run result's record), approvals (callId → approval record),
 * extra(step) (a node to add to a step's row: a pending approval's prompt).
 */
export function traceRows(steps, record, context = {}) {
  const sorted = [...steps].sort((a, b) => a.seq - b.seq);
  const axis = timeAxis(sorted, record);
  return { rows: rowsOf(tracksOf(sorted), 0, axis, context), axis };
}

/** Tick labels of the axis: 0, ¼, ½, ¾ and all of it. */
export function axisTicks(axis) {
  const ticks = el('div', { class: 'trace-axis', 'aria-hidden': 'true' });
  for (const part of [0, 0.25, 0.5, 0.75, 1]) {
    const tick = el('span', {}, duration(axis.span * part));
    tick.style.setProperty('--at', `${part * 100}%`);
    ticks.append(tick);
  }
  return ticks;
}

/** How much of one payload part the page writes: a 1 MB tool output stays quick to show and scroll. */
const SHOWN_CHARS = 100_000;

/**
 * The full payload of a step (GET /runs/:id/steps/:seq); without one (a live step), what the page
 * already knows of it and `context.payloadNote` saying why.
 */
export function fillDetail(detail, step, payload, context = {}) {
  const parts = [];
  const block = (title, value) => {
    if (value === undefined) return;
    const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
    const cut = text.length > SHOWN_CHARS;
    parts.push(
      el('h4', {}, title),
      el(
        'pre',
        { tabindex: '0', 'data-part': title.toLowerCase() },
        cut
          ? `${text.slice(0, SHOWN_CHARS)}\n… (${(text.length - SHOWN_CHARS).toLocaleString()} more characters not shown)`
          : text,
      ),
    );
  };
  const facts = [
    ['Started', new Date(step.startedAt).toLocaleString()],
    ['Took', duration(step.durationMs)],
    ['Status', step.status],
    step.payloadBytes !== undefined ? ['Payload', `${step.payloadBytes.toLocaleString()} bytes`] : undefined,
  ].filter(Boolean);
  parts.push(
    el(
      'dl',
      { class: 'trace-detail-facts' },
      ...facts.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]),
    ),
  );
  if (step.retries?.length) block('Retries', step.retries.map(retryLine).join('\n'));
  if (payload) {
    if (payload.truncated)
      parts.push(
        el(
          'p',
          { class: 'hint trace-truncated' },
          'Over 1 MB: the server kept the start of each part of this payload (as JSON text).',
        ),
      );
    block('Input', payload.input);
    block('Output', payload.output);
    if (payload.error) block('Error', describeError(payload.error));
    if (payload.answer)
      block('Answer', typeof payload.answer === 'string' ? payload.answer : payload.answer.text);
    if (payload.answer?.toolCalls?.length) block('Tool calls', payload.answer.toolCalls);
    if (payload.sent) block('Sent', payload.sent);
    if (step.usage) block('Usage', step.usage);
  } else {
    if (step.preview?.input !== undefined) block('Input (start)', step.preview.input);
    if (step.preview?.output !== undefined) block('Output (start)', step.preview.output);
    if (step.error) block('Error', describeError(step.error));
    if (step.usage) block('Usage', step.usage);
    parts.push(
      el('p', { class: 'hint' }, context.payloadNote ?? 'The full payload is not kept for this step.'),
    );
  }
  detail.replaceChildren(...parts);
}
