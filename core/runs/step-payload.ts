import type { Message } from '../agent/messages.ts';

/** A step's full payload, as `GET /runs/:id/steps/:seq` answers it. */
export interface StepPayload {
  /** A tool call's input. */
  input?: unknown;
  /** A tool call's output (a workflow step's output, a condition's answer). */
  output?: unknown;
  /** A tool call's error. */
  error?: { code: string; message: string };
  /** A model call's answer: its text and the tool calls it asked for. */
  answer?: { text: string; toolCalls?: { id: string; name: string; input: unknown }[] };
  /** The messages a model call was sent, as far as the run keeps them (see `stepPayload`). */
  sent?: Message[];
  /** Set when the kept payload was cut at `MAX_PAYLOAD_BYTES`: its fields are then the start of their JSON text. */
  truncated?: true;
}

/** How much of a step's payload is kept with its row: a huge tool output cannot blow up the row. */
export const MAX_PAYLOAD_BYTES = 1_000_000;
/** How long a preview is (characters). */
export const PREVIEW_CHARS = 240;

/**
 * Where a recorded step carries its payload (as JSON text) on its way to the table: a symbol, so
 * the payload is never in a step's JSON (lists answer previews only).
 * @internal
 */
export const STEP_PAYLOAD: unique symbol = Symbol('hubos.stepPayload');

/** The start of a value as text: a string as it is, anything else as JSON. */
export function previewOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > PREVIEW_CHARS ? text.slice(0, PREVIEW_CHARS) : text;
}

/**
 * A payload as the JSON text to keep and its full size in bytes. Over `MAX_PAYLOAD_BYTES`, each
 * field is kept as the start of its JSON text, with `truncated: true`.
 */
export function keptPayload(payload: StepPayload): { json: string; bytes: number } {
  const json = JSON.stringify(payload);
  const bytes = Buffer.byteLength(json);
  if (bytes <= MAX_PAYLOAD_BYTES) return { json, bytes };
  const fields = Object.entries(payload).filter(([, value]) => value !== undefined);
  // A quarter of the cap per field, in characters: at most 3 bytes each, so the whole fits.
  const share = Math.floor(MAX_PAYLOAD_BYTES / 4 / Math.max(1, fields.length));
  const cut: Record<string, unknown> = { truncated: true };
  for (const [key, value] of fields) {
    const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
    cut[key] = text.length > share ? text.slice(0, share) : text;
  }
  return { json: JSON.stringify(cut), bytes };
}
