// The Runs view: filters, the caller's runs newest first a page at a time (by cursor), the first
// page refreshed every 2 s while shown (and at once when a run is started here), the usage chart.

import { api, failure } from './studio-api.js';
import { duration, plural, when } from './studio-format.js';
import { loadUsage } from './usage-chart.js';

const REFRESH_MS = 2000;
const PAGE = 25;
const SINCE = {
  '': 'any time',
  hour: 'the last hour',
  day: 'the last 24 hours',
  week: 'the last 7 days',
  month: 'the last 30 days',
};
const SINCE_MS = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000, month: 30 * 86_400_000 };
const STATES = ['queued', 'running', 'completed', 'failed', 'cancelled', 'interrupted'];
const SURFACES = ['rest', 'a2a', 'ag-ui', 'mcp', 'stars', 'workflow', 'subagent', 'cli', 'eval'];

const field = (id, text, control) => h('label', { for: id, class: 'filter' }, h('span', {}, text), control);
const options = (values, any) => [
  h('option', { value: '' }, any),
  ...values.map((v) => h('option', { value: v }, v)),
];

export function createRunsView(root) {
  const agent = h('input', {
    id: 'runs-agent',
    list: 'runs-agents',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'any',
  });
  const agents = h('datalist', { id: 'runs-agents' });
  const status = h('select', { id: 'runs-status' }, ...options(STATES, 'any'));
  const via = h('select', { id: 'runs-via' }, ...options(SURFACES, 'any'));
  const since = h(
    'select',
    { id: 'runs-since' },
    ...Object.entries(SINCE).map(([v, t]) => h('option', { value: v }, t)),
  );
  const q = h('input', {
    id: 'runs-q',
    type: 'search',
    maxlength: '200',
    autocomplete: 'off',
    placeholder: 'text in the input',
  });
  // The search runs on the server (GET /runs?q=), over every run, not just the page shown.
  const bucket = h(
    'select',
    { id: 'usage-bucket' },
    h('option', { value: 'hour' }, 'per hour'),
    h('option', { value: 'day' }, 'per day'),
  );
  const chart = h('figure', { class: 'usage', id: 'usage-chart', 'aria-labelledby': 'usage-title' });
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const body = h('tbody', { id: 'runs-rows' });
  const table = h(
    'table',
    { class: 'runs-table', id: 'runs-table' },
    h('caption', { class: 'visually-hidden' }, 'Runs, newest first'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['Started', 'Agent', 'Status', 'Via', 'Input', 'Steps', 'Took'].map((t) =>
          h('th', { scope: 'col' }, t),
        ),
      ),
    ),
    body,
  );
  const empty = h('p', { class: 'empty', hidden: true }, 'No runs match.');
  const newer = h('button', { type: 'button', class: 'quiet', id: 'runs-newer', disabled: true }, '← Newer');
  const older = h('button', { type: 'button', class: 'quiet', id: 'runs-older', disabled: true }, 'Older →');
  const where = h('span', { class: 'hint', id: 'runs-page', 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'runs-filters', role: 'search', 'aria-label': 'Filter the runs' },
    field('runs-agent', 'Agent', agent),
    agents,
    field('runs-status', 'Status', status),
    field('runs-via', 'Via', via),
    field('runs-since', 'Since', since),
    field('runs-q', 'Search', q),
  );
  root.replaceChildren(
    h(
      'section',
      { class: 'usage-box', 'aria-labelledby': 'usage-title' },
      h(
        'div',
        { class: 'usage-head' },
        h('h2', { id: 'usage-title' }, 'Usage'),
        field('usage-bucket', 'Tokens and cost', bucket),
      ),
      chart,
    ),
    h('h2', { id: 'runs-title' }, 'Runs'),
    form,
    error,
    table,
    empty,
    h('nav', { class: 'runs-pages', 'aria-label': 'Pages of runs' }, newer, where, older),
  );

  /** Cursors of the pages before the shown one ('' is the first page). */
  const view = { cursors: [''], next: undefined, loading: undefined, timer: undefined, shown: undefined };

  const filters = () => {
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (agent.value.trim()) query.set('agent', agent.value.trim());
    if (status.value) query.set('status', status.value);
    if (via.value) query.set('via', via.value);
    if (since.value) query.set('since', new Date(Date.now() - SINCE_MS[since.value]).toISOString());
    if (q.value.trim()) query.set('q', q.value.trim());
    return query;
  };

  function row(run) {
    const took = run.finishedAt
      ? Date.parse(run.finishedAt) - Date.parse(run.startedAt ?? run.createdAt)
      : undefined;
    const link = h('a', { href: `#/runs/${encodeURIComponent(run.id)}` }, when(run.createdAt));
    return h(
      'tr',
      { 'data-run': run.id, 'data-status': run.status },
      h('td', {}, link),
      h('td', {}, run.agent),
      h('td', {}, h('span', { class: 'badge', 'data-status': run.status }, run.status)),
      h('td', {}, run.via ?? 'rest'),
      h(
        'td',
        { class: 'runs-input' },
        (run.input ?? '').slice(0, 160),
        run.againOf
          ? h(
              'a',
              {
                class: 'runs-again',
                href: `#/compare/${encodeURIComponent(run.againOf)}/${encodeURIComponent(run.id)}`,
                title: 'Compare with the run it repeats',
              },
              'again: compare',
            )
          : undefined,
      ),
      h('td', { class: 'num' }, String(run.steps ?? 0)),
      h('td', { class: 'num' }, took === undefined ? '—' : duration(took)),
    );
  }

  async function load(quiet = false) {
    const cursor = view.cursors.at(-1);
    const query = filters();
    if (cursor) query.set('cursor', cursor);
    const key = query.toString();
    if (view.loading === key) return;
    view.loading = key;
    if (!quiet) table.setAttribute('aria-busy', 'true');
    try {
      const answer = await api(`/runs?${query}`);
      if (view.loading !== key) return; // the filters changed meanwhile
      const runs = answer.runs ?? [];
      // A refresh that changes nothing leaves the rows (and the reader's place) as they are.
      const shown = JSON.stringify(runs.map((run) => [run.id, run.status, run.steps, run.finishedAt]));
      if (shown !== view.shown) {
        view.shown = shown;
        const focused = body.contains(document.activeElement)
          ? document.activeElement.closest('tr')?.dataset.run
          : undefined;
        const fragment = document.createDocumentFragment();
        for (const run of runs) fragment.append(row(run));
        body.replaceChildren(fragment);
        // The keyboard stays on the run it was on.
        if (focused) body.querySelector(`tr[data-run="${CSS.escape(focused)}"] a`)?.focus();
      }
      empty.hidden = runs.length > 0;
      view.next = answer.nextCursor;
      older.disabled = !view.next;
      newer.disabled = view.cursors.length < 2;
      where.textContent = `Page ${view.cursors.length} · ${plural(runs.length, 'run')}`;
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
  for (const control of [status, via, since]) control.addEventListener('change', restart);
  let typing;
  for (const control of [agent, q])
    control.addEventListener('input', () => {
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
  bucket.addEventListener('change', () => loadUsage(chart, bucket.value));

  const shown = () => state.view === 'runs' && document.visibilityState === 'visible';
  const refresh = () => {
    if (shown() && view.cursors.length === 1) void load(true);
  };
  document.addEventListener('studio:run-started', refresh);
  document.addEventListener('visibilitychange', refresh);

  return {
    /** Shows the view: loads the list and the chart, and refreshes the first page while shown. */
    open(params = new URLSearchParams()) {
      if (params.has('agent')) agent.value = params.get('agent');
      agents.replaceChildren(...(state.agents ?? []).map((a) => h('option', { value: a.name })));
      void load();
      void loadUsage(chart, bucket.value);
      clearInterval(view.timer);
      view.timer = setInterval(refresh, REFRESH_MS);
    },
    close() {
      clearInterval(view.timer);
      view.timer = undefined;
    },
  };
}
