// A run's page: its record, its trace (recorded steps, or live from its events while it runs),
// a step's full payload on demand, its pending approvals decided in place, run again, and a
// Stars team's members and messages. Uses app.js's h, readJsonEvents, approvalView, pendingApproval.

import { LiveSteps } from './live-trace.js';
import { sessionSection } from './session-view.js';
import { api, apiOrNothing, askable, failure, noRun, runPath } from './studio-api.js';
import { cost, describeError, duration, tokens, when } from './studio-format.js';
import { showTeam } from './team.js';
import { axisTicks, fillDetail, traceRows } from './trace.js';

const FINAL = new Set(['completed', 'cancelled', 'failed', 'interrupted']);

/** The page shown: its run id, the follow going, the approval prompts by call id. */
let current;

/** A name and its value, kept together in the facts' grid. */
function fact(name, value, attributes = {}) {
  return [h('div', {}, h('dt', {}, name), h('dd', attributes, value))];
}

function header(record, totals) {
  const took = record.finishedAt
    ? Date.parse(record.finishedAt) - Date.parse(record.startedAt ?? record.createdAt)
    : undefined;
  const costText = totals ? cost(totals.cost) : '—';
  return h(
    'dl',
    { class: 'run-facts' },
    ...fact('Agent', record.agent),
    ...fact('Status', record.status, { class: 'run-status', 'data-status': record.status }),
    ...fact('Via', record.via ?? 'rest'),
    ...fact('Created', when(record.createdAt)),
    ...fact('Finished', record.finishedAt ? when(record.finishedAt) : '—'),
    ...fact('Duration', took === undefined ? '—' : duration(took)),
    ...fact(
      'Tokens',
      totals
        ? `${tokens(totals.inputTokens)} in · ${tokens(totals.outputTokens)} out${totals.cachedInputTokens ? ` · ${tokens(totals.cachedInputTokens)} cached` : ''}`
        : '—',
      { class: 'run-tokens' },
    ),
    ...fact('Cost', costText, { class: 'run-cost' }),
    ...(record.model ? fact('Model', record.model, { class: 'run-model' }) : []),
    ...(record.againOf
      ? fact(
          'Repeats',
          h(
            'span',
            { class: 'run-again-of' },
            h('a', { href: `#/runs/${encodeURIComponent(record.againOf)}` }, record.againOf),
            ' · ',
            h(
              'a',
              {
                class: 'run-compare',
                href: `#/compare/${encodeURIComponent(record.againOf)}/${encodeURIComponent(record.id)}`,
              },
              'compare both',
            ),
          ),
        )
      : []),
  );
}

function outcome(record) {
  const parts = [];
  if (record.input !== undefined)
    parts.push(h('h3', {}, 'Input'), h('pre', { class: 'run-input', tabindex: '0' }, record.input));
  if (record.result?.text)
    parts.push(h('h3', {}, 'Answer'), h('pre', { class: 'run-answer', tabindex: '0' }, record.result.text));
  const error = record.error ?? record.result?.error;
  if (error) parts.push(h('p', { class: 'run-error error', role: 'alert' }, describeError(error)));
  return parts;
}

/** Marks what the bench and the tests wait for: data in (trace-data), then painted (trace-painted). */
function markPainted(node) {
  requestAnimationFrame(() =>
    setTimeout(() => {
      performance.mark('trace-painted');
      try {
        performance.measure('trace-render', 'trace-data', 'trace-painted');
      } catch {
        // an earlier render's mark was cleared: nothing to measure
      }
      node.dataset.painted = String(Number(node.dataset.painted ?? 0) + 1);
    }),
  );
}

function drawTrace(page, steps, record, context) {
  const { rows, axis } = traceRows(steps, record, context);
  const ticks = axisTicks(axis);
  page.axis.replaceWith(ticks);
  page.axis = ticks;
  page.trace.replaceChildren(rows);
  page.trace.dataset.steps = String(steps.length);
  page.empty.hidden = steps.length > 0;
  performance.mark('trace-written');
  markPainted(page.trace);
}

async function openStep(page, button, context) {
  const row = button.closest('.trace-row');
  const detail = row.querySelector(':scope > .trace-detail');
  const opened = button.getAttribute('aria-expanded') === 'true';
  button.setAttribute('aria-expanded', String(!opened));
  detail.hidden = opened;
  if (opened || detail.dataset.loaded) return;
  detail.dataset.loaded = 'true';
  const seq = Number(row.dataset.seq);
  const step = context.bySeq.get(seq);
  if (!step) return;
  if (context.live) {
    // The live rows are the page's own, numbered as events came: the recorded ones replace them at the end.
    fillDetail(detail, step, undefined, {
      payloadNote: 'The run is going on: its full payloads come once it ends.',
    });
    return;
  }
  detail.replaceChildren(h('p', { class: 'hint' }, 'Loading…'));
  try {
    const answer = await api(`${runPath(page.id)}/steps/${seq}`);
    fillDetail(detail, answer.step, answer.payload);
  } catch (error) {
    detail.replaceChildren(h('p', { class: 'error', role: 'alert' }, failure(error)));
    delete detail.dataset.loaded; // opening it again asks again
  }
}

async function recorded(page, record) {
  const [stepsAnswer, approvals] = await Promise.all([
    api(`${runPath(page.id)}/steps`),
    apiOrNothing(`${runPath(page.id)}/approvals?all=true`).catch(() => undefined),
  ]);
  performance.mark('trace-data');
  const steps = stepsAnswer.steps ?? [];
  const context = {
    toolCalls: new Map((record.result?.toolCalls ?? []).map((call) => [call.id, call])),
    approvals: new Map((approvals?.approvals ?? []).map((a) => [a.callId, a])),
    bySeq: new Map(steps.map((step) => [step.seq, step])),
  };
  page.context = context;
  page.head.replaceChildren(header(record, stepsAnswer.totals));
  drawTrace(page, steps, record, context);
  return steps;
}

/** Follows a run's events, growing the trace, until its run-end (then its recorded steps). */
async function follow(page) {
  const live = new LiveSteps(page.id);
  const prompts = new Map();
  const context = {
    live: true,
    bySeq: new Map(),
    extra: (step) => {
      const asked = step.callId && (live.pending.get(step.callId) ?? prompts.get(step.callId)?.asked);
      if (!asked) return undefined;
      let prompt = prompts.get(step.callId);
      if (!prompt) {
        const item = { approval: pendingApproval(asked) };
        const box = approvalView(item, () => box.update());
        box.update();
        prompt = { asked, item, box };
        prompts.set(step.callId, prompt);
      }
      return prompt.box.node;
    },
  };
  page.context = context;
  let queued = false;
  const redraw = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      if (current !== page) return;
      context.bySeq = new Map(live.steps.map((step) => [step.seq, step]));
      // Replayed events all arrive at once: the axis starts at the first step, not the run's creation.
      const now = Date.now();
      for (const step of live.steps) if (step.running) step.durationMs = now - Date.parse(step.startedAt);
      drawTrace(page, live.steps, {}, context);
    });
  };
  page.status.textContent = 'Running: the trace grows as the run goes.';
  const response = await request(`${API}${runPath(page.id)}/events`, {
    headers: { accept: 'text/event-stream' },
    signal: page.controller.signal,
  });
  if (!response.ok) throw await responseError(response);
  // Running steps' bars grow while nothing else happens.
  // Not while the keyboard is on the trace: a redraw would take the focus away.
  const ticking = setInterval(() => {
    if (live.steps.some((step) => step.running) && !page.trace.contains(document.activeElement)) redraw();
  }, 1000);
  try {
    return await followEvents(response, live, prompts, redraw);
  } finally {
    clearInterval(ticking);
  }
}

async function followEvents(response, live, prompts, redraw) {
  for await (const { event, data: parsed } of readJsonEvents(response.body)) {
    if (event === 'run-end') return parsed;
    if (event === 'approval-result') {
      const prompt = prompts.get(parsed.callId);
      if (prompt) {
        Object.assign(prompt.item.approval, {
          status: parsed.status,
          reason: parsed.reason,
          answer: parsed.answer,
        });
        prompt.box.update();
      }
    }
    if (live.apply(event, parsed)) redraw();
  }
  return undefined;
}

function againForm(record) {
  if (/^(stars|workflow):/.test(record.agent)) return undefined;
  const input = h('textarea', { id: 'again-input', rows: '3', spellcheck: 'false' });
  input.value = record.input ?? '';
  const model = h(
    'select',
    { id: 'again-model' },
    h('option', { value: '' }, record.model ? `the same model (${record.model})` : 'the same model'),
  );
  const modelLabel = h('label', { for: 'again-model', hidden: true }, 'Model');
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const go = h('button', { type: 'submit' }, 'Run again');
  const form = h(
    'form',
    { class: 'again-form', 'aria-labelledby': 'again-title' },
    h('h3', { id: 'again-title' }, 'Run again'),
    h('label', { for: 'again-input' }, 'Input'),
    input,
    modelLabel,
    model,
    go,
    error,
  );
  model.hidden = true;
  // The models the server lets a run be started again on (its agents'); none listed, no choice.
  void api('/runs/models')
    .then(({ models = [] }) => {
      const others = models.filter((name) => typeof name === 'string' && name !== record.model);
      if (!others.length) return;
      model.append(...others.map((name) => h('option', { value: name }, name)));
      model.hidden = modelLabel.hidden = false;
    })
    .catch((failed) => {
      error.textContent = failure(failed);
      error.hidden = false;
    });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.hidden = true;
    go.disabled = true;
    const body = {};
    if (input.value !== (record.input ?? '')) body.input = input.value;
    if (model.value) body.model = model.value;
    try {
      const again = await api(`${runPath(record.id)}/again`, { method: 'POST', body: JSON.stringify(body) });
      studioSignal('run-started');
      location.hash = `#/compare/${encodeURIComponent(record.id)}/${encodeURIComponent(again.id)}`;
    } catch (failed) {
      error.textContent = failure(failed);
      error.hidden = false;
    } finally {
      go.disabled = false;
    }
  });
  return form;
}

/** Tells the runs list a run was started here (it refreshes at once). */
export function studioSignal(name) {
  document.dispatchEvent(new CustomEvent(`studio:${name}`));
}

/** Shows run `id` in `root`; leaving the page (another hash) stops following it. */
export async function showRun(root, id) {
  current?.controller.abort();
  const page = {
    id,
    controller: new AbortController(),
    head: h('div', { class: 'run-head' }),
    status: h('p', { class: 'status', role: 'status' }),
    axis: h('div'),
    trace: h('ol', { class: 'trace', id: 'trace', 'aria-labelledby': 'trace-title' }),
    empty: h('p', { class: 'empty', hidden: true }, 'No steps recorded.'),
  };
  current = page;
  const title = h('h2', { id: 'run-title' }, 'Run ', h('code', {}, id));
  root.replaceChildren(
    h('p', { class: 'back' }, h('a', { href: '#/runs' }, '← Runs')),
    title,
    h('p', { class: 'hint' }, 'Loading…'),
  );
  let record;
  try {
    if (!askable(id)) throw new ApiError('RUN_NOT_FOUND', `no run "${id}"`, 404);
    record = await api(runPath(id));
  } catch (error) {
    if (current !== page) return;
    root.replaceChildren(
      h('p', { class: 'back' }, h('a', { href: '#/runs' }, '← Runs')),
      title,
      h('p', { class: 'error', role: 'alert' }, error.status === 404 ? noRun(id) : failure(error)),
    );
    return;
  }
  if (current !== page) return;
  const team = record.agent.startsWith('stars:')
    ? h('section', { class: 'team', 'aria-labelledby': 'team-title' })
    : undefined;
  const outcomeBox = h('div', { class: 'run-outcome' }, ...outcome(record));
  const parts = [
    h('p', { class: 'back' }, h('a', { href: '#/runs' }, '← Runs')),
    title,
    page.head,
    page.status,
    outcomeBox,
    sessionSection(record),
    team,
    h('h3', { id: 'trace-title' }, 'Trace'),
    h('div', { class: 'trace-box' }, page.axis, page.trace),
    page.empty,
    againForm(record),
  ];
  root.replaceChildren(...parts.filter(Boolean));
  page.head.replaceChildren(header(record));
  page.trace.addEventListener('click', (event) => {
    const button = event.target.closest('.trace-open');
    if (button) void openStep(page, button, page.context);
  });
  try {
    let steps = FINAL.has(record.status) ? await recorded(page, record) : undefined;
    if (!steps) {
      const ended = await follow(page);
      if (current !== page) return;
      record = ended ?? (await api(runPath(id)));
      outcomeBox.replaceChildren(...outcome(record));
      steps = await recorded(page, record);
      page.status.textContent = `The run ${record.status}.`;
    }
    if (team && current === page) await showTeam(team, record, steps);
  } catch (error) {
    if (page.controller.signal.aborted) return;
    page.status.textContent = failure(error);
  }
}

/** Stops following the shown run (the view was left). */
export function leaveRun() {
  current?.controller.abort();
  current = undefined;
}
