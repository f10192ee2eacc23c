// The panel about the picked agent, above the conversation: its description, model, and tools as a
// row of names. A tool's description (some run to a dozen lines) shows only when its name is pressed,
// so the panel stays a few lines tall. Classic script: app.js calls renderAgentPanel (and h, from it).

/** Fills the panel for `agent` (hides it without one). */
// biome-ignore lint/correctness/noUnusedVariables: app.js calls it (classic scripts share the global scope).
function renderAgentPanel(agent) {
  const panel = document.getElementById('agent-info');
  const list = document.getElementById('agent-tools');
  const about = document.getElementById('agent-tool-about');
  panel.hidden = !agent;
  about.hidden = true;
  about.replaceChildren();
  if (!agent) return;
  document.getElementById('agent-description').textContent = agent.description || 'No description.';
  document.getElementById('agent-model').textContent = agent.model || 'unknown';
  document.getElementById('agent-tool-count').textContent = agent.tools.length
    ? ` (${agent.tools.length})`
    : '';
  if (!agent.tools.length) {
    list.replaceChildren(h('li', { class: 'none' }, 'none'));
    return;
  }
  const chips = agent.tools.map((tool) =>
    h(
      'button',
      { type: 'button', class: 'tool-chip', 'aria-expanded': 'false', 'aria-controls': about.id },
      tool.name,
    ),
  );
  // One description at a time, in the box under the names: pressing the open one closes it.
  const toggle = (index) => {
    const opening = chips[index].getAttribute('aria-expanded') !== 'true';
    for (const chip of chips) chip.setAttribute('aria-expanded', 'false');
    about.hidden = !opening;
    if (!opening) return;
    const tool = agent.tools[index];
    chips[index].setAttribute('aria-expanded', 'true');
    about.replaceChildren(
      h('code', { class: 'tool-about-name' }, tool.name),
      h('span', {}, tool.description || 'No description.'),
    );
  };
  chips.forEach((chip, index) => {
    chip.addEventListener('click', () => toggle(index));
    // Escape closes the open description (and does not also stop a running run).
    chip.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape' || chip.getAttribute('aria-expanded') !== 'true') return;
      event.stopPropagation();
      toggle(index);
    });
  });
  list.replaceChildren(...chips.map((chip) => h('li', {}, chip)));
}
