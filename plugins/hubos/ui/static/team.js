// A Stars team run's members and roles (GET /stars/:name/members) and the messages between them:
// the team's history during the run for admin keys, else read off the members' tracks (the
// messaging tools — stars_send, stars_broadcast, stars_delegate — their model calls asked for).

import { api, apiOrNothing, runPath } from './studio-api.js';
import { when } from './studio-format.js';

/** The member a track is (`crew-lead (leader)` → `crew-lead`). */
const memberOf = (label) => label.replace(/ \([^)]*\)$/, '');
/** Model calls read for messages at most: a long team run keeps its page quick. */
const MAX_READ = 40;

/** The messages one member's tool calls (of a model answer) sent. */
function messagesOf(step, toolCalls) {
  const from = memberOf(step.track.label);
  const messages = [];
  for (const call of toolCalls ?? []) {
    const input = call.input ?? {};
    if (call.name === 'stars_send') messages.push({ from, to: input.to, content: input.content });
    else if (call.name === 'stars_broadcast') messages.push({ from, to: '*', content: input.content });
    else if (call.name === 'stars_delegate')
      for (const task of Array.isArray(input.tasks) ? input.tasks : [])
        messages.push({ from, to: task?.worker, content: task?.task, via: 'delegate' });
  }
  return messages
    .filter((m) => typeof m.content === 'string')
    .map((m) => ({ ...m, to: String(m.to ?? '?'), at: step.finishedAt ?? step.startedAt }));
}

/** Messages read off the members' tracks: their model calls that asked for tools, read in full. */
async function messagesFromSteps(runId, steps) {
  const asked = steps
    .filter(
      (step) => step.track?.kind === 'member' && step.kind === 'model' && step.finishReason === 'tool-calls',
    )
    .slice(0, MAX_READ);
  const details = await Promise.all(
    asked.map((step) => api(`${runPath(runId)}/steps/${step.seq}`).catch(() => undefined)),
  );
  return details.flatMap((detail, i) => messagesOf(asked[i], detail?.payload?.answer?.toolCalls));
}

export async function showTeam(section, record, steps) {
  const name = record.agent.slice('stars:'.length);
  const path = `/stars/${encodeURIComponent(name)}`;
  section.replaceChildren(h('h3', { id: 'team-title' }, 'Team ', h('code', {}, name)));
  const members = await apiOrNothing(`${path}/members`).catch(() => undefined);
  if (!members) {
    section.append(h('p', { class: 'hint' }, 'The team is not served here any more.'));
    return;
  }
  section.append(
    h(
      'ul',
      { class: 'team-members', 'aria-label': 'Members' },
      ...members.members.map((member) =>
        h(
          'li',
          { 'data-member': member.agentId, 'data-role': member.role },
          h('strong', {}, member.agentId),
          ` ${member.role}`,
          member.description ? h('span', { class: 'hint' }, ` — ${member.description}`) : undefined,
        ),
      ),
    ),
  );
  // The team's history, admins only (403 for other keys): the messages of this run's time.
  const history = await apiOrNothing(`${path}/messages`).catch(() => undefined);
  let messages;
  let source;
  if (history) {
    const from = Date.parse(record.startedAt ?? record.createdAt);
    const to = record.finishedAt ? Date.parse(record.finishedAt) : Number.POSITIVE_INFINITY;
    messages = (history.messages ?? []).filter((m) => {
      const at = Date.parse(m.at);
      return at >= from - 1000 && at <= to + 1000;
    });
    source = 'the team’s history during the run';
  } else {
    messages = await messagesFromSteps(record.id, steps);
    source = 'the members’ tool calls';
  }
  section.append(h('h4', {}, 'Messages'));
  if (!messages.length) {
    section.append(h('p', { class: 'hint' }, 'No messages between members.'));
    return;
  }
  section.append(
    h(
      'ol',
      { class: 'team-messages', 'aria-label': `Messages, ${source}` },
      ...messages.map((m) =>
        h(
          'li',
          {},
          h(
            'span',
            { class: 'team-route' },
            `${m.from} → ${m.to === '*' ? 'everyone' : m.to}${m.via ? ` (${m.via})` : ''}`,
          ),
          h('span', { class: 'hint' }, ` ${when(m.at)}`),
          h('p', {}, m.content),
        ),
      ),
    ),
  );
}
