import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CliIO } from '../io.ts';
import { STARTER_CONFIG } from '../templates/config.ts';

/** `hubos init`: writes a starter agent.config.ts; never overwrites one without --force. */
export async function initCommand(flags: { force?: boolean }, io: CliIO): Promise<number> {
  const file = join(io.cwd, 'agent.config.ts');
  if (existsSync(file) && !flags.force) {
    io.stderr.write(`${file} already exists: remove it or run "hubos init --force" to overwrite it.\n`);
    return 1;
  }
  await writeFile(file, STARTER_CONFIG);
  io.stdout.write(`Wrote ${file}. Next: "hubos tools" lists its tools, "hubos validate" checks it.\n`);
  return 0;
}
