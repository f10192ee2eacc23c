// Two experiments side by side: each scorer's mean in both, then per case (matched by case id) and
// scorer both scores, the second marked better or worse than the first.

import { noExperiment } from './experiment-page.js';
import {
  change,
  changeMark,
  datasetLabel,
  experimentHref,
  experimentPath,
  score,
} from './experiment-parts.js';
import { api, askable, failure } from './studio-api.js';
import { when } from './studio-format.js';

let shown = 0;
/** Cases written at a time. */
const CASE_PAGE = 100;

const back = () => h('p', { class: 'back' }, h('a', { href: '#/experiments' }, '← Experiments'));
const title = () => h('h2', { id: 'experiment-compare-title' }, 'Compare experiments');

async function load(id) {
  try {
    if (!askable(id)) throw new ApiError('EXPERIMENT_NOT_FOUND', `no experiment "${id}"`, 404);
    return await api(experimentPath(id));
  } catch (error) {
    error.experiment = id; // which of the two is none
    throw error;
  }
}

function side(experiment, label) {
  return h(
    'section',
    { class: 'compare-side', 'data-experiment': experiment.id, 'aria-label': label },
    h('h3', {}, `${label}: `, h('a', { href: experimentHref(experiment.id) }, experiment.name)),
    h(
      'dl',
      { class: 'run-facts' },
      ...[
        ['Dataset', datasetLabel(experiment.dataset)],
        ['Agent', experiment.agent],
        ['Model', experiment.model],
        ['Started', when(experiment.createdAt)],
      ].map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v))),
    ),
  );
}

function row(cells, attributes = {}) {
  return h('tr', attributes, ...cells);
}

function meansTable(a, b) {
  const names = [
    ...new Set([...Object.keys(a.summary?.scorers ?? {}), ...Object.keys(b.summary?.scorers ?? {})]),
  ];
  return h(
    'table',
    { class: 'runs-table experiment-compare-means', id: 'experiment-compare-means' },
    h('caption', { class: 'visually-hidden' }, 'Each scorer’s mean in both'),
    h('thead', {}, row(['Scorer', 'First', 'Second', 'Change'].map((t) => h('th', { scope: 'col' }, t)))),
    h(
      'tbody',
      {},
      ...names.map((name) => {
        const before = a.summary?.scorers?.[name]?.mean;
        const now = b.summary?.scorers?.[name]?.mean;
        return row(
          [
            h('th', { scope: 'row' }, name),
            h('td', { class: 'num' }, score(before)),
            h('td', { class: 'num' }, score(now)),
            h('td', {}, changeMark(change(before, now))),
          ],
          { 'data-scorer': name },
        );
      }),
    ),
  );
}

/** Case ids in the first's order, then those only the second has. */
function caseIds(a, b) {
  return [...new Set([...a.map((c) => c.id), ...b.map((c) => c.id)])];
}

/** Each case (matched by id) with its scorers' scores in both and how the second changed. */
function pairedCases(a, b) {
  const first = new Map(a.map((c) => [c.id, c]));
  const second = new Map(b.map((c) => [c.id, c]));
  return caseIds(a, b).map((id) => {
    const x = first.get(id);
    const y = second.get(id);
    const names = [...new Set([...Object.keys(x?.scores ?? {}), ...Object.keys(y?.scores ?? {})])];
    const scores = names.map((name) => {
      const before = x?.scores?.[name];
      const now = y?.scores?.[name];
      return { name, before, now, kind: change(before?.score, now?.score) };
    });
    return { id, only: !x ? 'only in the second' : !y ? 'only in the first' : undefined, scores };
  });
}

function caseRows({ id, only, scores }) {
  return scores.map(({ name, before, now, kind }, i) =>
    row(
      [
        i === 0
          ? h(
              'th',
              { scope: 'rowgroup', rowspan: String(scores.length) },
              id,
              only ? h('span', { class: 'hint' }, ` (${only})`) : undefined,
            )
          : undefined,
        h('td', {}, name),
        h('td', { class: 'num', title: before?.reason ?? '' }, score(before?.score)),
        h('td', { class: 'num', title: now?.reason ?? '' }, score(now?.score)),
        h('td', {}, changeMark(kind)),
      ].filter(Boolean),
      { 'data-case': id, 'data-scorer': name, ...(kind ? { 'data-change': kind } : {}) },
    ),
  );
}

const changed = (paired) => paired.scores.some((s) => s.kind === 'better' || s.kind === 'worse');

/** The cases' table, CASE_PAGE cases at a time, with a switch to those whose scores changed. */
function casesTable(all) {
  const body = h('tbody', {});
  const more = h('button', { type: 'button', class: 'quiet', id: 'experiment-compare-more' });
  const only = h('input', { type: 'checkbox', id: 'experiment-compare-only' });
  const picked = { cases: all, shown: 0 };
  const fill = () => {
    const next = picked.cases.slice(picked.shown, picked.shown + CASE_PAGE);
    body.append(...next.flatMap(caseRows));
    picked.shown += next.length;
    const left = picked.cases.length - picked.shown;
    more.hidden = left === 0;
    more.textContent = `Show ${Math.min(left, CASE_PAGE)} more cases (${left} not shown)`;
  };
  more.addEventListener('click', fill);
  only.addEventListener('change', () => {
    picked.cases = only.checked ? all.filter(changed) : all;
    picked.shown = 0;
    body.replaceChildren();
    fill();
  });
  fill();
  return h(
    'div',
    {},
    h(
      'label',
      { class: 'experiment-only', for: 'experiment-compare-only' },
      only,
      ` Only the ${all.filter(changed).length} cases whose scores changed`,
    ),
    h(
      'table',
      { class: 'runs-table experiment-compare-cases', id: 'experiment-compare-cases' },
      h('caption', { class: 'visually-hidden' }, 'Each case’s scores in both'),
      h(
        'thead',
        {},
        row(['Case', 'Scorer', 'First', 'Second', 'Change'].map((t) => h('th', { scope: 'col' }, t))),
      ),
      body,
    ),
    more,
  );
}

export async function showExperimentCompare(root, a, b) {
  const mine = ++shown;
  root.replaceChildren(back(), title(), h('p', { class: 'status' }, 'Loading…'));
  try {
    const [x, y] = await Promise.all([load(a), load(b)]);
    if (mine !== shown) return;
    const paired = pairedCases(x.cases, y.cases);
    const count = (kind) => paired.flatMap((c) => c.scores).filter((s) => s.kind === kind).length;
    root.replaceChildren(
      back(),
      title(),
      h('div', { class: 'compare' }, side(x.experiment, 'First'), side(y.experiment, 'Second')),
      h('h3', {}, 'Means'),
      meansTable(x.experiment, y.experiment),
      h(
        'h3',
        { id: 'experiment-compare-cases-title' },
        `Cases · ${count('better')} scores better, ${count('worse')} worse`,
      ),
      casesTable(paired),
    );
  } catch (error) {
    if (mine !== shown) return;
    root.replaceChildren(
      back(),
      title(),
      h(
        'p',
        { class: 'error', role: 'alert' },
        error.status === 404 ? noExperiment(error.experiment) : failure(error),
      ),
    );
  }
}

export function leaveExperimentCompare() {
  shown++;
}
