/**
 * A retention's pace: `batch` (which deletes one small batch and says how many entries it handled)
 * runs at most once every `everyMs`, or again at the next call while its last batch was full, so
 * a backlog drains over a few ticks without ever holding the store for long.
 * @internal
 */
export function pacedBatches(
  batch: () => Promise<number>,
  full: number,
  everyMs = 60_000,
): () => Promise<void> {
  let ranAt = 0;
  return async () => {
    if (Date.now() - ranAt < everyMs) return;
    ranAt = Date.now();
    if ((await batch()) >= full) ranAt = 0;
  };
}
