// A Stars team run's members and roles (GET /stars/:name/members) and the messages between them:
// from the members' steps (their message and delegation tool calls), or the team's history for admins.

import { apiOrNothing } from './studio-api.js';
import { when } from './studio-format.js';

const MESSAGE_TOOLS = /^(stars_)?(delegate|send|message|broadcast|ask)/;

/** Messages read off the members' tracks: who called a messaging tool with what. */
function messagesFromSteps(steps) {
  return steps
    .filter((step) => step.track?.kind === 'member' && step.kind === 'tool' && MESSAGE_TOOLS.test(step.name))
    .map((step) => ({
      from: step.track.label,
      via: step.name.replace(/^stars_/, ''),
      content: step.preview?.input ?? '',
      at: step.startedAt,
    }));
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
  let messages = messagesFromSteps(steps);
  let source = 'from the members’ steps';
  if (!messages.length) {
    // The team's history, admins only (403 for other keys): the messages of this run's time.
    const history = await apiOrNothing(`${path}/messages`).catch(() => undefined);
    const from = Date.parse(record.startedAt ?? record.createdAt);
    const to = record.finishedAt ? Date.parse(record.finishedAt) : Number.POSITIVE_INFINITY;
    messages = (history?.messages ?? []).filter((m) => {
      const at = Date.parse(m.at);
      return at >= from - 1000 && at <= to + 1000;
    });
    source = history ? 'the team’s history during the run' : '';
  }
  section.append(h('h4', {}, 'Messages'));
  if (!messages.length) {
    section.append(
      h(
        'p',
        { class: 'hint' },
        source ? 'No messages between members.' : 'The team’s messages are shown to admin keys.',
      ),
    );
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
            m.via ? `${m.from} (${m.via})` : `${m.from} → ${m.to === '*' ? 'everyone' : m.to}`,
          ),
          h('span', { class: 'hint' }, ` ${when(m.at)}`),
          h('p', {}, m.content),
        ),
      ),
    ),
  );
}
