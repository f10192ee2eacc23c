/**
 * The known name a typo most likely meant, for "did you mean …?": within two edits (ignoring
 * case) and closer than half the longer name's length, so short unrelated names are not offered.
 * @internal
 */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= 2 && distance < Math.max(name.length, candidate.length) / 2) {
      if (!best || distance < best.distance) best = { name: candidate, distance };
    }
  }
  return best?.name;
}

/**
 * ` (did you mean "x"?)` naming the known name a typo most likely meant, or '' when none is near:
 * every message that rejects an unknown name ends the same way. `show` writes the name as the
 * user would type it (`hubos serve`, `--json`).
 * @internal
 */
export function didYouMean(
  name: string,
  known: Iterable<string>,
  show: (name: string) => string = (found) => found,
): string {
  const found = closestName(name, known);
  return found === undefined ? '' : ` (did you mean "${show(found)}"?)`;
}

/** Edits between two names: insertions, deletions, substitutions and swaps of neighbours (`lsit`). */
function editDistance(a: string, b: string): number {
  // Rows i-2, i-1 and i of the table (optimal string alignment distance).
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, before[j - 2]! + 1);
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}
