/**
 * A root server gives the workspace to the sandbox's account while that account's processes may be
 * running in it: a command left from an earlier call swapping a folder for a symbolic link must not
 * make root change the owner of anything outside. Needs root; skips, saying so, otherwise.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  lchownSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';

const ROOT = process.getuid?.() === 0;
const NOBODY = 65534;
const ROUNDS = 1500;
const PAIRS = 16;

/** As nobody: swaps each `sub<i>` (a folder with a file) and `link<i>` (a link to a folder outside), for ever. */
const SWAPPER = `const { renameSync } = require('node:fs');
process.chdir(process.argv[1]);
process.stdout.write('ready\\n');
for (;;) {
  for (let i = 0; i < ${PAIRS}; i++) {
    try { renameSync('sub' + i, 'held' + i); renameSync('link' + i, 'sub' + i); renameSync('sub' + i, 'link' + i); renameSync('held' + i, 'sub' + i); } catch {}
  }
}`;

let base: string | undefined;
let swapper: ChildProcess | undefined;
afterAll(() => {
  swapper?.kill('SIGKILL');
  if (base) rmSync(base, { recursive: true, force: true });
});

it('never chowns a file outside the workspace, whatever a sandbox process swaps meanwhile', async (context) => {
  if (!ROOT) return context.skip('needs root (CI runs as root)');
  base = mkdtempSync(join(tmpdir(), 'hubos-hand-over-'));
  chmodSync(base, 0o755);
  const outside = join(base, 'outside');
  mkdirSync(outside);
  const secret = join(outside, 'secret');
  writeFileSync(secret, 'root only\n');
  const ws = join(base, 'ws');
  mkdirSync(ws);
  chownSync(ws, NOBODY, NOBODY);
  for (let i = 0; i < PAIRS; i++) {
    const sub = join(ws, `sub${i}`);
    mkdirSync(sub);
    // Named like the file outside: a walk that reads the folder, then follows the link by name, hits it.
    writeFileSync(join(sub, 'secret'), '');
    for (const path of [sub, join(sub, 'secret')]) chownSync(path, NOBODY, NOBODY);
    symlinkSync(outside, join(ws, `link${i}`));
    lchownSync(join(ws, `link${i}`), NOBODY, NOBODY);
  }

  swapper = spawn(
    'setpriv',
    [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', process.execPath, '-e', SWAPPER, ws],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise((resolve, reject) => {
    swapper?.stdout?.once('data', resolve);
    swapper?.once('exit', (code) => reject(new Error(`the swapper ended (${code})`)));
  });
  for (let round = 0; round < ROUNDS; round++) {
    // A fresh module each round: the hand-over happens once per workspace and process.
    vi.resetModules();
    const { handOverWorkspace } = await import('../../plugins/builtin-tools/bash/sandbox-user.ts');
    try {
      handOverWorkspace(ws, { uid: NOBODY, gid: NOBODY });
    } catch {
      // a path that vanished mid-walk: the swap, not what this test is about
    }
    const owner = statSync(secret).uid;
    if (owner !== 0) expect.fail(`round ${round}: ${secret} now belongs to uid ${owner}`);
  }
  expect(statSync(secret).uid).toBe(0);
  expect(statSync(outside).uid).toBe(0);
}, 240_000);
