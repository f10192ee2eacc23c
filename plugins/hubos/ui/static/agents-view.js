// The Agents view: the Cosmos agents this key may see, with their state and stats (runs, tokens,
// last active), from GET /cosmos/agents (and /cosmos/stats for an admin key's capacity line).

import { api, apiOrNothing, failure } from './studio-api.js';
import { plural, tokens, when } from './studio-format.js';

export async function showAgents(root) {
  const rows = h('tbody', { id: 'cosmos-rows' });
  const summary = h('p', { class: 'hint', id: 'cosmos-summary' });
  root.replaceChildren(
    h('h2', { id: 'agents-title' }, 'Agents'),
    summary,
    h(
      'table',
      { class: 'runs-table', id: 'cosmos-table', 'aria-labelledby': 'agents-title' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Agent', 'Template', 'State', 'Owner', 'Runs', 'Tokens', 'Last active'].map((t) =>
            h('th', { scope: 'col' }, t),
          ),
        ),
      ),
      rows,
    ),
  );
  try {
    const { agents } = await api('/cosmos/agents');
    const fragment = document.createDocumentFragment();
    for (const agent of agents)
      fragment.append(
        h(
          'tr',
          { 'data-agent': agent.id, 'data-state': agent.state },
          h('td', {}, h('a', { href: `#/runs?agent=${encodeURIComponent(agent.id)}` }, agent.id)),
          h('td', {}, agent.template),
          h(
            'td',
            {},
            h(
              'span',
              { class: 'badge', 'data-status': agent.state === 'running' ? 'running' : 'idle' },
              agent.state,
            ),
          ),
          h('td', {}, agent.owner ?? 'shared'),
          h('td', { class: 'num' }, String(agent.runs ?? 0)),
          h(
            'td',
            { class: 'num' },
            `${tokens(agent.usage?.inputTokens ?? 0)} in · ${tokens(agent.usage?.outputTokens ?? 0)} out`,
          ),
          h('td', {}, when(agent.lastActiveAt)),
        ),
      );
    rows.replaceChildren(fragment);
    // Capacity and totals are the admins' (403 for other keys: the list alone then).
    const stats = await apiOrNothing('/cosmos/stats').catch(() => undefined);
    summary.textContent = stats
      ? `${plural(stats.count, 'agent')} of ${stats.capacity} · ${stats.byState.running} running · ${stats.totals.created} created, ${stats.totals.evicted} evicted`
      : plural(agents.length, 'agent');
  } catch (error) {
    root.append(h('p', { class: 'error', role: 'alert' }, failure(error)));
  }
}
