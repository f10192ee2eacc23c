import { MEMORY_UPDATE_TOOL } from './tool-names.ts';

/**
 * The working memory as the model reads it, after the agent's instructions: what it is, how to
 * keep it, and the document (or its template when empty). Placed last in the system prompt, so
 * the instructions before it stay a stable prefix for prompt caching.
 */
export function workingMemoryInstructions(text: string, template: string): string {
  const written = text.trim() !== '' ? text : template.trim() !== '' ? template : '(empty)';
  // The document is written from what users said: a tag of its own in it cannot close it early
  // and put text after it among the instructions.
  const body = written.replace(/<(\/?)(working_memory)>/gi, '<$1$2 (quoted)>');
  return [
    '## Working memory',
    `What you keep about this user across conversations, in markdown. When you learn something lasting (a name, a preference, a goal, an open task), call ${MEMORY_UPDATE_TOOL} with the whole document, changed; keep it short.`,
    '<working_memory>',
    body,
    '</working_memory>',
  ].join('\n');
}

/** The agent's instructions with the working memory after them. */
export function withWorkingMemory(system: string | undefined, memory: string): string {
  return system ? `${system}\n\n${memory}` : memory;
}
