// Two runs side by side (a run and its run-again): answer, steps, tokens, cost, duration. A run
// still going is followed until it ends.

import { api, askable, failure, noRun, runPath } from './studio-api.js';
import { cost, describeError, duration, tokens } from './studio-format.js';

const FINAL = new Set(['completed', 'cancelled', 'failed', 'interrupted']);
let shown = 0;

async function settled(id, isCurrent) {
  for (;;) {
    let record;
    try {
      if (!askable(id)) throw new ApiError('RUN_NOT_FOUND', `no run "${id}"`, 404);
      record = await api(runPath(id));
    } catch (error) {
      error.run = id; // which of the two is no run
      throw error;
    }
    if (FINAL.has(record.status) || !isCurrent()) return record;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function column(record, answer, side) {
  const steps = answer?.steps ?? [];
  const totals = answer?.totals;
  const took = record.finishedAt
    ? Date.parse(record.finishedAt) - Date.parse(record.startedAt ?? record.createdAt)
    : undefined;
  const models = [...new Set(steps.filter((s) => s.kind === 'model').map((s) => s.name))];
  const facts = [
    ['Status', record.status],
    ['Model', models.join(', ') || '—'],
    ['Steps', String(steps.length)],
    ['Tokens', totals ? `${tokens(totals.inputTokens)} in · ${tokens(totals.outputTokens)} out` : '—'],
    ['Cost', totals ? cost(totals.cost) : '—'],
    ['Duration', took === undefined ? '—' : duration(took)],
  ];
  return h(
    'section',
    {
      class: 'compare-side',
      'data-side': side,
      'data-run': record.id,
      'aria-label': `${side === 'a' ? 'First' : 'Second'} run`,
    },
    h('h3', {}, h('a', { href: `#/runs/${encodeURIComponent(record.id)}` }, record.id)),
    h(
      'dl',
      { class: 'run-facts' },
      ...facts.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', { 'data-fact': k.toLowerCase() }, v))),
    ),
    h('h4', {}, 'Input'),
    h('pre', { class: 'compare-input', tabindex: '0' }, record.input ?? ''),
    h('h4', {}, 'Answer'),
    record.result?.text !== undefined
      ? h('pre', { class: 'compare-answer', tabindex: '0' }, record.result.text)
      : h('p', { class: 'error' }, describeError(record.error ?? { message: 'no answer' })),
    h('h4', {}, 'Steps'),
    h(
      'ol',
      { class: 'compare-steps' },
      ...steps.map((s) =>
        h(
          'li',
          { 'data-kind': s.kind },
          `${s.kind} ${s.name} · ${duration(s.durationMs)}${s.status === 'error' ? ' · error' : ''}`,
        ),
      ),
    ),
  );
}

/** Says which run repeats the other (POST /runs/:id/again), when one does. */
function pairing(a, b) {
  const text =
    b.againOf === a.id
      ? 'The second run is a run again of the first.'
      : a.againOf === b.id
        ? 'The first run is a run again of the second.'
        : undefined;
  return text ? h('p', { class: 'hint compare-again' }, text) : undefined;
}

export async function showCompare(root, a, b) {
  const mine = ++shown;
  const isCurrent = () => mine === shown;
  root.replaceChildren(
    h('p', { class: 'back' }, h('a', { href: '#/runs' }, '← Runs')),
    h('h2', { id: 'compare-title' }, 'Compare runs'),
    h('p', { class: 'status', role: 'status' }, 'Waiting for both runs to end…'),
  );
  try {
    const records = await Promise.all([a, b].map((id) => settled(id, isCurrent)));
    if (!isCurrent()) return;
    const steps = await Promise.all([a, b].map((id) => api(`${runPath(id)}/steps`)));
    if (!isCurrent()) return;
    root.replaceChildren(
      h('p', { class: 'back' }, h('a', { href: '#/runs' }, '← Runs')),
      h('h2', { id: 'compare-title' }, 'Compare runs'),
      ...[pairing(records[0], records[1])].filter(Boolean),
      h(
        'div',
        { class: 'compare', 'aria-labelledby': 'compare-title' },
        column(records[0], steps[0], 'a'),
        column(records[1], steps[1], 'b'),
      ),
    );
  } catch (error) {
    if (!isCurrent()) return;
    root.replaceChildren(
      h('p', { class: 'back' }, h('a', { href: '#/runs' }, '← Runs')),
      h('h2', { id: 'compare-title' }, 'Compare runs'),
      h('p', { class: 'error', role: 'alert' }, error.status === 404 ? noRun(error.run) : failure(error)),
    );
  }
}

export function leaveCompare() {
  shown++;
}
