/**
 * A folder swapped for a symlink to outside between check and use. First deterministically, by
 * swapping at each step of the confinement primitives; then by racing a process that swaps the
 * folder in a tight loop against every tool, asserting nothing outside is ever read or changed.
 * (Run with PROC_FD forced to false, the race test catches the path-based fallback leaking.)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdir, readdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, executeTool, MemoryStore, Registry } from '../../../../core/index.ts';
import {
  ConfinementError,
  openAt,
  openDirInside,
  PROC_FD,
  realpathInside,
} from '../../../../plugins/builtin-tools/filesystem/confine.ts';
import { filesystemTools } from '../../../../plugins/builtin-tools/filesystem/index.ts';
import { openForRead } from '../../../../plugins/builtin-tools/filesystem/open-file.ts';
import { walk } from '../../../../plugins/builtin-tools/filesystem/walk.ts';
import { SECRET, type Workspace, workspace } from './helpers.ts';

/** `d` is a real folder holding f.txt ("INSIDE"); the outside folder holds its own f.txt (the secret). */
async function setup(): Promise<Workspace> {
  const ws = await workspace();
  await ws.write({ 'd/f.txt': 'INSIDE\n' });
  await writeFile(join(ws.outside, 'f.txt'), `${SECRET}\n`);
  return ws;
}

/** Replaces the folder `d` with a symlink to the outside folder (the real one moves to `d.real`). */
async function swap(ws: Workspace): Promise<void> {
  await rename(join(ws.root, 'd'), join(ws.root, 'd.real'));
  await symlink(ws.outside, join(ws.root, 'd'));
}

describe('swap between check and use', () => {
  it('a path checked before the swap is refused when opened after it', async () => {
    const ws = await setup();
    const checked = await realpathInside(ws.root, 'd/f.txt');
    expect(checked).toBe(join(ws.root, 'd/f.txt'));
    await swap(ws);
    await expect(openDirInside(ws.root, join(ws.root, 'd'))).rejects.toBeInstanceOf(ConfinementError);
    await expect(openForRead(ws.root, 'd/f.txt')).rejects.toBeInstanceOf(ConfinementError);
  });

  // Opening relative to a pinned folder needs /proc/self/fd (Linux); elsewhere only the after-open check holds.
  it.runIf(PROC_FD)('a folder pinned before the swap keeps pointing at the real folder', async () => {
    const ws = await setup();
    const dir = await openDirInside(ws.root, join(ws.root, 'd'));
    try {
      await swap(ws);
      const file = await openAt(dir, 'f.txt', constants.O_RDONLY);
      expect(await file.readFile('utf8')).toBe('INSIDE\n');
      await file.close();
      const created = await openAt(dir, 'new.txt', constants.O_WRONLY | constants.O_CREAT, 0o666);
      await created.close();
    } finally {
      await dir.handle.close();
    }
    expect(await readdir(ws.outside)).toEqual(['f.txt', 'secret.txt']);
    expect((await readdir(join(ws.root, 'd.real'))).sort()).toEqual(['f.txt', 'new.txt']);
  });

  it('a file swapped for a symlink after its folder was pinned is refused', async () => {
    const ws = await setup();
    const dir = await openDirInside(ws.root, join(ws.root, 'd'));
    try {
      await rename(join(ws.root, 'd/f.txt'), join(ws.root, 'd/old.txt'));
      await symlink(join(ws.outside, 'f.txt'), join(ws.root, 'd/f.txt'));
      await expect(openAt(dir, 'f.txt', constants.O_RDONLY)).rejects.toMatchObject({ code: 'ELOOP' });
    } finally {
      await dir.handle.close();
    }
  });

  it('a walk does not enter a folder swapped for a symlink after it was listed', async () => {
    const ws = await setup();
    await ws.write({ 'a/x.txt': '' });
    const root = await openDirInside(ws.root, ws.root);
    const seen: string[] = [];
    try {
      for await (const entry of walk(root, '.', 10)) {
        seen.push(entry.path);
        if (entry.path === 'd') await swap(ws); // listed as a folder; about to be entered
      }
    } finally {
      await root.handle.close();
    }
    expect(seen).toEqual(['a', 'a/x.txt', 'd']);
  });
});

// Without /proc/self/fd (macOS, BSD) walks and deletes go by path and keep a window: see confine.ts.
describe.runIf(PROC_FD)('racing a swapper process', () => {
  let swapper: ChildProcess | undefined;
  afterEach(() => {
    swapper?.kill();
    swapper = undefined;
  });

  /** Flips `d` between the real folder and a symlink to outside, as fast as it can, until killed. */
  function startSwapper(root: string): ChildProcess {
    const script = `
      const { lstatSync, renameSync, rmSync } = require('node:fs');
      const at = (name) => ${JSON.stringify(root)} + '/' + name;
      // Each state lasts a random 0-100 µs: calls land on every state, and swaps still hit them mid-way.
      const stay = () => { const end = process.hrtime.bigint() + BigInt(Math.floor(Math.random() * 100_000)); while (process.hrtime.bigint() < end); };
      const has = (name) => { try { return lstatSync(at(name)), true; } catch { return false; } };
      for (;;) {
        // A write that landed in a gap re-created 'd' as a plain folder: clear it, or the swap jams.
        if (has('safe') && has('evil') && has('d')) rmSync(at('d'), { recursive: true, force: true });
        try { renameSync(at('safe'), at('d')); stay(); renameSync(at('d'), at('safe')); } catch {}
        try { renameSync(at('evil'), at('d')); stay(); renameSync(at('d'), at('evil')); } catch {}
      }`;
    return spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  }

  it('no tool ever reads, lists, finds, writes or deletes anything outside', async () => {
    const ws = await workspace();
    await ws.write({ 'safe/f.txt': 'INSIDE\n', 'safe/victim.txt': '', 'safe/sub/x.txt': '' });
    await mkdir(join(ws.outside, 'sub'));
    await writeFile(join(ws.outside, 'f.txt'), `${SECRET}\n`);
    await writeFile(join(ws.outside, 'victim.txt'), SECRET);
    await writeFile(join(ws.outside, 'sub/x.txt'), SECRET);
    await writeFile(join(ws.outside, 'only-outside.txt'), SECRET);
    await symlink(ws.outside, join(ws.root, 'evil'));
    const before = (await readdir(ws.outside, { recursive: true })).sort();
    swapper = startSwapper(ws.root);

    // One registry for the whole race (invokeTool compiles the schema per call): more calls per swap.
    const registry = new Registry();
    registry.registerBatch(filesystemTools());
    const env = {
      signal: new AbortController().signal,
      agentId: 'race',
      sandbox: createSandbox(ws.root),
      store: new MemoryStore(),
    };
    const call = (name: string, input: object) => executeTool(registry, name, input, env);
    const outcomes = { ok: 0, refused: 0, escapes: 0 };
    // At least 1.5 s of racing, and on until both sides of the race were seen (a loaded machine
    // swaps less often per call), within a bound that fails loudly rather than hangs.
    const started = Date.now();
    const raced = () => outcomes.ok > 0 && outcomes.escapes > 0;
    while (Date.now() - started < 1_500 || (!raced() && Date.now() - started < 30_000)) {
      const results = await Promise.all([
        call('filesystem_read', { path: 'd/f.txt' }),
        call('filesystem_write', { path: 'd/new.txt', content: 'x' }),
        call('filesystem_write', { path: 'd/f.txt', content: 'INSIDE\n' }),
        call('filesystem_list', { path: 'd', recursive: true }),
        call('filesystem_search', { pattern: SECRET, path: 'd' }),
        call('filesystem_search', { pattern: SECRET }),
        call('filesystem_list', { recursive: true }),
        call('filesystem_delete', { path: 'd/victim.txt' }),
        call('filesystem_delete', { path: 'd/sub', recursive: true }),
      ]);
      for (const result of results) {
        const text = JSON.stringify(result);
        expect(text).not.toContain(SECRET);
        expect(text).not.toContain('only-outside');
        if (result.ok) outcomes.ok++;
        else outcomes.refused++;
        if (!result.ok && /escapes the workspace/.test(result.error.message)) outcomes.escapes++;
      }
    }
    swapper.kill();
    expect((await readdir(ws.outside, { recursive: true })).sort()).toEqual(before);
    expect(await readFile(join(ws.outside, 'f.txt'), 'utf8')).toBe(`${SECRET}\n`);
    expect(await readFile(join(ws.outside, 'victim.txt'), 'utf8')).toBe(SECRET);
    expect(await readFile(join(ws.outside, 'sub/x.txt'), 'utf8')).toBe(SECRET);
    // The race was real: some calls landed on the folder, others on the symlink or a gap.
    expect(outcomes.ok).toBeGreaterThan(0);
    expect(outcomes.escapes).toBeGreaterThan(0);
  }, 45_000);
});
