// The Experiments view: the caller's evaluations of datasets newest first, a page at a time (by
// cursor), filtered by agent, the first page refreshed while shown (an eval running elsewhere
// shows up and ends); two picked are compared side by side.

import { compareHref, datasetLabel, experimentHref, score, verdict } from './experiment-parts.js';
import { api, failure } from './studio-api.js';
import { duration, plural, when } from './studio-format.js';

const PAGE = 25;
const REFRESH_MS = 3000;

/** Each scorer's mean, as `contains 0.90 · judge 0.75`. */
function means(summary) {
  const scorers = Object.entries(summary?.scorers ?? {});
  if (!scorers.length) return '—';
  return scorers.map(([name, s]) => `${name} ${score(s.mean)}`).join(' · ');
}

export function createExperimentsView(root) {
  const agent = h('input', {
    id: 'experiments-agent',
    list: 'experiments-agents',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'any',
  });
  const agents = h('datalist', { id: 'experiments-agents' });
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const body = h('tbody', { id: 'experiments-rows' });
  const table = h(
    'table',
    { class: 'runs-table', id: 'experiments-table' },
    h('caption', { class: 'visually-hidden' }, 'Experiments, newest first'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Pick to compare')),
        ...['Started', 'Name', 'Agent', 'Dataset', 'Model', 'Cases', 'Means', 'Result', 'Took'].map((t) =>
          h('th', { scope: 'col' }, t),
        ),
      ),
    ),
    body,
  );
  const empty = h(
    'p',
    { class: 'empty', hidden: true },
    'No experiments yet: run `hubos eval <dataset>` or evaluate() and they show here.',
  );
  const compare = h(
    'button',
    { type: 'button', id: 'experiments-compare', disabled: true },
    'Compare the two picked',
  );
  const picked = h(
    'span',
    { class: 'hint', id: 'experiments-picked', 'aria-live': 'polite' },
    'Pick two to compare.',
  );
  const newer = h(
    'button',
    { type: 'button', class: 'quiet', id: 'experiments-newer', disabled: true },
    '← Newer',
  );
  const older = h(
    'button',
    { type: 'button', class: 'quiet', id: 'experiments-older', disabled: true },
    'Older →',
  );
  const where = h('span', { class: 'hint', id: 'experiments-page', 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'runs-filters', role: 'search', 'aria-label': 'Filter the experiments' },
    h('label', { for: 'experiments-agent', class: 'filter' }, h('span', {}, 'Agent'), agent),
    agents,
  );
  root.replaceChildren(
    h('h2', { id: 'experiments-title' }, 'Experiments'),
    form,
    error,
    h('div', { class: 'experiments-pick' }, compare, picked),
    table,
    empty,
    h('nav', { class: 'runs-pages', 'aria-label': 'Pages of experiments' }, newer, where, older),
  );

  /** Cursors of the pages before the shown one ('' is the first); the picked ones, by id, with their time. */
  const view = {
    cursors: [''],
    next: undefined,
    loading: undefined,
    picks: new Map(),
    shown: undefined,
    timer: undefined,
  };

  function showPicks() {
    const count = view.picks.size;
    compare.disabled = count !== 2;
    picked.textContent =
      count === 2 ? 'Two picked.' : count === 1 ? 'Pick one more to compare.' : 'Pick two to compare.';
    for (const box of body.querySelectorAll('input[type="checkbox"]')) {
      box.checked = view.picks.has(box.value);
      box.disabled = count >= 2 && !box.checked;
    }
  }

  function row(experiment) {
    const summary = experiment.summary;
    const took =
      experiment.finishedAt !== undefined
        ? Date.parse(experiment.finishedAt) - Date.parse(experiment.createdAt)
        : undefined;
    const pick = h('input', {
      type: 'checkbox',
      value: experiment.id,
      'aria-label': `Pick ${experiment.name} to compare`,
    });
    pick.addEventListener('change', () => {
      if (pick.checked) view.picks.set(experiment.id, experiment.createdAt);
      else view.picks.delete(experiment.id);
      showPicks();
    });
    const status =
      experiment.status === 'completed'
        ? verdict(summary?.passed)
        : h('span', { class: 'badge', 'data-status': experiment.status }, experiment.status);
    return h(
      'tr',
      { 'data-experiment': experiment.id, 'data-agent': experiment.agent },
      h('td', {}, pick),
      h('td', {}, h('a', { href: experimentHref(experiment.id) }, when(experiment.createdAt))),
      h('td', { class: 'runs-input' }, experiment.name),
      h('td', {}, experiment.agent),
      h('td', {}, datasetLabel(experiment.dataset)),
      h('td', {}, experiment.model),
      h(
        'td',
        { class: 'num' },
        `${experiment.dataset?.cases ?? summary?.cases ?? 0}${summary?.failed ? ` (${summary.failed} failed)` : ''}`,
      ),
      h('td', { class: 'experiment-means' }, means(summary)),
      h('td', {}, status),
      h('td', { class: 'num' }, took === undefined ? '—' : duration(took)),
    );
  }

  async function load() {
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (agent.value.trim()) query.set('agent', agent.value.trim());
    const cursor = view.cursors.at(-1);
    if (cursor) query.set('after', cursor);
    const key = query.toString();
    if (view.loading === key) return;
    view.loading = key;
    table.setAttribute('aria-busy', 'true');
    try {
      const answer = await api(`/experiments?${query}`);
      if (view.loading !== key) return; // the filter changed meanwhile
      const experiments = answer.experiments ?? [];
      // A refresh that changes nothing leaves the rows (and the reader's place) as they are.
      const shown = JSON.stringify(experiments.map((e) => [e.id, e.status, e.summary?.passed]));
      if (shown !== view.shown) {
        view.shown = shown;
        body.replaceChildren(...experiments.map(row));
        showPicks();
      }
      empty.hidden = experiments.length > 0;
      view.next = answer.next;
      older.disabled = !view.next;
      newer.disabled = view.cursors.length < 2;
      where.textContent = `Page ${view.cursors.length} · ${plural(experiments.length, 'experiment')}`;
      error.hidden = true;
      root.dataset.loaded = String(Number(root.dataset.loaded ?? 0) + 1);
    } catch (failed) {
      if (view.loading !== key) return;
      error.textContent = failure(failed);
      error.hidden = false;
    } finally {
      if (view.loading === key) view.loading = undefined;
      table.removeAttribute('aria-busy');
    }
  }

  const restart = () => {
    view.cursors = [''];
    void load();
  };
  let typing;
  agent.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(restart, 250);
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    restart();
  });
  older.addEventListener('click', () => {
    if (!view.next) return;
    view.cursors.push(view.next);
    void load();
  });
  newer.addEventListener('click', () => {
    if (view.cursors.length < 2) return;
    view.cursors.pop();
    void load();
  });
  // The older one first: the second is read as the change.
  compare.addEventListener('click', () => {
    if (view.picks.size !== 2) return;
    const [a, b] = [...view.picks].sort(
      (x, y) => Date.parse(x[1]) - Date.parse(y[1]) || (x[0] < y[0] ? -1 : 1),
    );
    location.hash = compareHref(a[0], b[0]);
  });

  const refresh = () => {
    if (state.view === 'experiments' && document.visibilityState === 'visible' && view.cursors.length === 1)
      void load();
  };
  document.addEventListener('visibilitychange', refresh);

  return {
    /** Shows the view (`?agent=` in the address fills the filter) and refreshes its first page while shown. */
    open(params = new URLSearchParams()) {
      if (params.has('agent')) agent.value = params.get('agent');
      agents.replaceChildren(...(state.agents ?? []).map((a) => h('option', { value: a.name })));
      view.shown = undefined;
      void load();
      clearInterval(view.timer);
      view.timer = setInterval(refresh, REFRESH_MS);
    },
    close() {
      clearInterval(view.timer);
      view.timer = undefined;
    },
  };
}
