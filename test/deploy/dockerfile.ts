/**
 * Reads a Dockerfile into its stages and instructions, for the tests that replay deploy/Dockerfile
 * without a Docker engine: comments, line continuations, `--flag=value` options and the exec (JSON)
 * form. Only what deploy/Dockerfile uses; anything else is an error, so the file cannot drift from
 * what the replay understands.
 */
export interface Instruction {
  keyword: string;
  /** `--from=deps` → `{ from: 'deps' }`. */
  flags: Record<string, string>;
  /** The rest of the line, continuations joined. */
  args: string;
  /** The exec form's words, when the arguments are a JSON array. */
  exec?: string[];
  line: number;
}

export interface Stage {
  base: string;
  name?: string;
  instructions: Instruction[];
}

const KEYWORDS = new Set([
  'FROM',
  'WORKDIR',
  'COPY',
  'RUN',
  'ENV',
  'USER',
  'EXPOSE',
  'VOLUME',
  'HEALTHCHECK',
  'STOPSIGNAL',
  'CMD',
]);

export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const start = index + 1;
    let line = lines[index]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    while (line.endsWith('\\')) {
      line = line.slice(0, -1).trimEnd();
      // Comment lines inside a continued instruction are dropped, as Docker does.
      let next = (lines[++index] ?? '').trim();
      while (next.startsWith('#')) next = (lines[++index] ?? '').trim();
      line = `${line} ${next}`;
    }
    const [, keyword = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = keyword.toUpperCase();
    if (!KEYWORDS.has(upper))
      throw new Error(`Dockerfile:${start}: ${keyword} is not understood by the replay`);
    const flags: Record<string, string> = {};
    let args = rest;
    for (let flag = /^--([\w-]+)=(\S+)\s+/.exec(args); flag; flag = /^--([\w-]+)=(\S+)\s+/.exec(args)) {
      flags[flag[1]!] = flag[2]!;
      args = args.slice(flag[0].length);
    }
    if (upper === 'HEALTHCHECK') args = args.replace(/^CMD\s+/, '');
    const instruction: Instruction = { keyword: upper, flags, args, line: start };
    if (args.startsWith('[')) instruction.exec = JSON.parse(args) as string[];
    if (upper === 'FROM') {
      const [, base = '', name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args) ?? [];
      stages.push({ base, ...(name ? { name } : {}), instructions: [] });
    } else {
      const stage = stages.at(-1);
      if (!stage) throw new Error(`Dockerfile:${start}: ${keyword} before FROM`);
      stage.instructions.push(instruction);
    }
  }
  return stages;
}

/** `ENV A=1 B=2` → `{ A: '1', B: '2' }` (unquoted values, as deploy/Dockerfile writes them). */
export function envOf(instruction: Instruction): Record<string, string> {
  return Object.fromEntries(
    instruction.args.split(/\s+/).map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`Dockerfile:${instruction.line}: ENV wants NAME=value pairs`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}
