// A run's conversation: every message its session keeps, a page at a time from the newest, those a
// compaction summarized for the model included. Opened on demand: most visits want the trace.
// Uses app.js's h.

import { api, failure, runPath } from './studio-api.js';
import { plural } from './studio-format.js';

const PAGE = 100;

function messageRow(message, index) {
  const calls = (message.toolCalls ?? []).map((call) =>
    h('code', { class: 'session-call' }, `${call.name}(${JSON.stringify(call.input ?? {})})`),
  );
  return h(
    'li',
    { class: 'session-message', 'data-role': message.role, 'data-index': String(index) },
    h('span', { class: 'session-role' }, message.role === 'tool' ? `tool ${message.name}` : message.role),
    message.content ? h('pre', { class: 'session-text', tabindex: '0' }, message.content) : undefined,
    ...calls,
  );
}

/** The run's session section, or nothing for a run without a session. */
export function sessionSection(record) {
  if (!record.sessionId) return undefined;
  const list = h('ol', { class: 'session-messages', id: 'session-messages' });
  const earlier = h('button', { type: 'button', class: 'session-earlier', hidden: true }, 'Show earlier');
  const status = h('p', { class: 'hint', role: 'status' });
  const box = h(
    'details',
    { class: 'session', id: 'session' },
    h('summary', {}, 'Conversation'),
    status,
    earlier,
    list,
  );
  let first;
  const load = async (offset, limit = PAGE) => {
    status.textContent = 'Loading…';
    try {
      const query = offset === undefined ? `?limit=${limit}` : `?offset=${offset}&limit=${limit}`;
      const page = await api(`${runPath(record.id)}/session${query}`);
      const rows = page.messages.map((message, i) => messageRow(message, page.offset + i));
      list.prepend(...rows);
      first = page.offset;
      list.dataset.total = String(page.total);
      status.textContent = `${plural(page.total, 'message')} in this session, the ones sent before a compaction included.`;
      earlier.hidden = first === 0;
    } catch (error) {
      status.textContent = failure(error);
    }
  };
  box.addEventListener('toggle', () => {
    if (box.open && first === undefined) void load();
  });
  // The page just before the first shown, never overlapping it.
  earlier.addEventListener('click', () => {
    const offset = Math.max(0, first - PAGE);
    void load(offset, first - offset);
  });
  return box;
}
