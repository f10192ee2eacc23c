// `hubos run` side of the cold-start bench: one agent and no model, so the `hubos` command picks the
// built-in offline demo model (the bench starts it with no OPENAI_* / ANTHROPIC_* variables).
export default { agents: { assistant: {} } };
