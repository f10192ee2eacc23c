/**
 * Caps a sub-agent's answer at `max` characters; a cut answer ends with a marker saying how much
 * was left out, so neither the model nor a reader mistakes it for the whole.
 */
export function capAnswer(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  // Never split a surrogate pair.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}\n[answer cut: ${end} of ${text.length} characters shown]`;
}
