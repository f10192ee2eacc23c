/** Reads a systemd unit file: its sections, each key's values in order (Environment= repeats). */
export type Unit = Record<string, Record<string, string[]>>;

export function parseUnit(text: string): Unit {
  const unit: Unit = {};
  let section: Record<string, string[]> | undefined;
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      section = {};
      unit[header[1]!] = section;
      continue;
    }
    const at = line.indexOf('=');
    if (!section || at < 1) throw new Error(`unit line ${index + 1}: expected [Section] or Key=value`);
    const key = line.slice(0, at).trim();
    section[key] = [...(section[key] ?? []), line.slice(at + 1).trim()];
  }
  return unit;
}

/** Environment= values: `NAME=value` pairs, several to a value. */
export function parseEnvironment(values: string[]): Record<string, string> {
  return assignments(values.flatMap((value) => value.split(/\s+(?=\w+=)/)));
}

/** An EnvironmentFile: a `NAME=value` a line, comments and blank lines skipped. */
export function parseEnvironmentFile(text: string): Record<string, string> {
  return assignments(text.split('\n').filter((line) => !/^\s*(#|$)/.test(line)));
}

function assignments(pairs: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`"${pair}" is not NAME=value`);
    env[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return env;
}
