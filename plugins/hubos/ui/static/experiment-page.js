// One experiment: what ran (dataset, agent, model, when), its summary (each scorer's mean against
// its threshold and the baseline's), then each case: input, output, status, every scorer's score
// with its reason, the link to its run's trace, and what got worse than in the baseline.

import {
  change,
  changeMark,
  compareHref,
  datasetLabel,
  experimentHref,
  experimentPath,
  inputText,
  score,
  verdict,
} from './experiment-parts.js';
import { api, askable, failure } from './studio-api.js';
import { cost, describeError, duration, tokens, when } from './studio-format.js';

let shown = 0;
/** Cases written at a time. */
const CASE_PAGE = 100;
const RUNNING_MS = 2000;

const back = () => h('p', { class: 'back' }, h('a', { href: '#/experiments' }, '← Experiments'));
const fact = (name, value, attributes = {}) => h('div', {}, h('dt', {}, name), h('dd', attributes, value));

/** What the page says for an experiment this key cannot see (the server answers 404, as for none). */
export const noExperiment = (id) =>
  `No experiment "${id.length > 80 ? `${id.slice(0, 80)}…` : id}" for this key.`;

function facts(experiment) {
  const summary = experiment.summary;
  const took =
    experiment.finishedAt !== undefined
      ? Date.parse(experiment.finishedAt) - Date.parse(experiment.createdAt)
      : undefined;
  return h(
    'dl',
    { class: 'run-facts experiment-facts' },
    fact('Dataset', datasetLabel(experiment.dataset), { 'data-fact': 'dataset' }),
    fact('Agent', experiment.agent, { 'data-fact': 'agent' }),
    fact('Model', experiment.model, { 'data-fact': 'model' }),
    fact('Started', when(experiment.createdAt), { 'data-fact': 'started' }),
    fact('Took', took === undefined ? '—' : duration(took)),
    fact(
      'Cases',
      `${summary?.cases ?? experiment.dataset?.cases ?? 0}${summary?.failed ? ` · ${summary.failed} failed` : ''}`,
    ),
    fact(
      'Tokens',
      summary ? `${tokens(summary.usage.inputTokens)} in · ${tokens(summary.usage.outputTokens)} out` : '—',
    ),
    fact('Cost', cost(summary?.cost)),
    fact(
      'Result',
      experiment.status === 'completed'
        ? verdict(summary?.passed)
        : h('span', { class: 'badge', 'data-status': experiment.status }, experiment.status),
      { 'data-fact': 'result' },
    ),
    ...(experiment.baseline
      ? [
          fact(
            'Baseline',
            h(
              'span',
              {},
              h(
                'a',
                { href: experimentHref(experiment.baseline), title: experiment.baseline },
                `${experiment.baseline.slice(0, 8)}…`,
              ),
              ' · ',
              h('a', { href: compareHref(experiment.baseline, experiment.id) }, 'compare'),
            ),
          ),
        ]
      : []),
  );
}

function summaryTable(summary) {
  const scorers = Object.entries(summary?.scorers ?? {});
  const baseline = scorers.some(([, s]) => s.baseline !== undefined);
  return h(
    'table',
    { class: 'runs-table experiment-summary', id: 'experiment-summary' },
    h('caption', { class: 'visually-hidden' }, 'Each scorer’s mean against its threshold'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['Scorer', 'Mean', 'Cases', 'Threshold', 'Result', ...(baseline ? ['Baseline'] : [])].map((t) =>
          h('th', { scope: 'col' }, t),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      ...scorers.map(([name, s]) =>
        h(
          'tr',
          { 'data-scorer': name },
          h('th', { scope: 'row' }, name),
          h('td', { class: 'num', 'data-mean': '' }, score(s.mean)),
          h('td', { class: 'num' }, String(s.cases)),
          h('td', { class: 'num' }, s.threshold === undefined ? '—' : score(s.threshold)),
          h('td', {}, verdict(s.passed)),
          ...(baseline ? [h('td', {}, `${score(s.baseline)} `, changeMark(change(s.baseline, s.mean)))] : []),
        ),
      ),
    ),
  );
}

function caseView(result) {
  const worse = result.worse ?? {};
  const worseNow = isWorse(result);
  const scores = Object.entries(result.scores ?? {});
  return h(
    'article',
    {
      class: 'experiment-case',
      'data-case': result.id,
      'data-status': result.status,
      'data-worse': String(worseNow),
    },
    h(
      'h3',
      { class: 'experiment-case-head' },
      h('span', { class: 'experiment-case-id' }, result.id),
      ' ',
      h('span', { class: 'badge', 'data-status': result.status }, result.status),
      worseNow
        ? h('span', { class: 'change', 'data-change': 'worse' }, '▼ worse than the baseline')
        : undefined,
      ' ',
      h('a', { class: 'experiment-run', href: `#/runs/${encodeURIComponent(result.runId)}` }, 'trace'),
    ),
    h('h4', {}, 'Input'),
    h('pre', { class: 'experiment-input', tabindex: '0' }, inputText(result.input)),
    h('h4', {}, 'Output'),
    h('pre', { class: 'experiment-output', tabindex: '0' }, result.output ?? ''),
    result.error ? h('p', { class: 'run-error error' }, describeError(result.error)) : undefined,
    h(
      'table',
      { class: 'runs-table experiment-scores' },
      h('caption', { class: 'visually-hidden' }, `Scores of case ${result.id}`),
      h('thead', {}, h('tr', {}, ...['Scorer', 'Score', 'Reason'].map((t) => h('th', { scope: 'col' }, t)))),
      h(
        'tbody',
        {},
        ...scores.map(([name, s]) =>
          h(
            'tr',
            { 'data-scorer': name, ...(worse[name] ? { 'data-worse': 'true' } : {}) },
            h('th', { scope: 'row' }, name),
            h(
              'td',
              { class: 'num' },
              score(s.score),
              worse[name]
                ? h(
                    'span',
                    { class: 'change', 'data-change': 'worse' },
                    ` ▼ was ${score(worse[name].before)}`,
                  )
                : undefined,
            ),
            h('td', { class: 'experiment-reason' }, s.reason ?? ''),
          ),
        ),
      ),
    ),
    h(
      'p',
      { class: 'hint' },
      `${duration(result.latencyMs)} · ${tokens(result.usage?.totalTokens)} tokens${result.cost !== undefined ? ` · ${cost(result.cost)}` : ''}`,
    ),
  );
}

const isWorse = (result) => Object.keys(result.worse ?? {}).length > 0;
const needsLook = (result) => isWorse(result) || result.status !== 'completed';

/**
 * The cases, CASE_PAGE at a time (a dataset may hold thousands: the page stays quick), with a
 * switch to those that got worse or did not complete.
 */
function caseList(cases) {
  const list = h('div', { class: 'experiment-cases', 'aria-labelledby': 'experiment-cases-title' });
  const more = h('button', { type: 'button', class: 'quiet', id: 'experiment-more' });
  const only = h('input', { type: 'checkbox', id: 'experiment-only' });
  const picked = { cases, shown: 0 };
  const fill = () => {
    const next = picked.cases.slice(picked.shown, picked.shown + CASE_PAGE);
    list.append(...next.map(caseView));
    picked.shown += next.length;
    const left = picked.cases.length - picked.shown;
    more.hidden = left === 0;
    more.textContent = `Show ${Math.min(left, CASE_PAGE)} more (${left} not shown)`;
  };
  more.addEventListener('click', fill);
  only.addEventListener('change', () => {
    picked.cases = only.checked ? cases.filter(needsLook) : cases;
    picked.shown = 0;
    list.replaceChildren();
    fill();
  });
  fill();
  return h(
    'div',
    {},
    h(
      'label',
      { class: 'experiment-only', for: 'experiment-only' },
      only,
      ` Only the ${cases.filter(needsLook).length} that got worse or did not complete`,
    ),
    list,
    more,
  );
}

export async function showExperiment(root, id, again = false) {
  const mine = ++shown;
  // Asked again (a running one): what is shown stays until the new answer replaces it.
  if (!again)
    root.replaceChildren(
      back(),
      h('h2', { id: 'experiment-title' }, 'Experiment'),
      h('p', { class: 'status' }, 'Loading…'),
    );
  try {
    if (!askable(id)) throw new ApiError('EXPERIMENT_NOT_FOUND', `no experiment "${id}"`, 404);
    const { experiment, cases } = await api(experimentPath(id));
    if (mine !== shown) return;
    const worse = cases.filter(isWorse).length;
    root.replaceChildren(
      back(),
      h('h2', { id: 'experiment-title' }, experiment.name),
      facts(experiment),
      h('h3', {}, 'Summary'),
      summaryTable(experiment.summary),
      ...(experiment.status === 'running'
        ? [
            h(
              'p',
              { class: 'status', role: 'status', id: 'experiment-progress' },
              `Running: ${cases.length} of ${experiment.dataset?.cases ?? '?'} cases done…`,
            ),
          ]
        : []),
      h('h3', { id: 'experiment-cases-title' }, `Cases${worse ? ` · ${worse} worse than the baseline` : ''}`),
      caseList(cases),
    );
    // An eval still running stores its cases as they end: asked again until it has ended.
    if (experiment.status === 'running')
      setTimeout(() => {
        if (mine === shown) void showExperiment(root, id, true);
      }, RUNNING_MS);
    root.dataset.experiment = experiment.id;
  } catch (error) {
    if (mine !== shown) return;
    root.replaceChildren(
      back(),
      h('h2', { id: 'experiment-title' }, 'Experiment'),
      h('p', { class: 'error', role: 'alert' }, error.status === 404 ? noExperiment(id) : failure(error)),
    );
  }
}

export function leaveExperiment() {
  shown++;
}
