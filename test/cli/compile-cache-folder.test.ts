/**
 * Node's compile cache runs what it finds in its folder instead of the file it was made from, so
 * `hubos` uses it only in a folder no other user can change (the schema cache's rule). Real
 * `hubos` processes, run by this user (root in CI), with a folder another user (uid 65534) owns
 * or may write to: a shared XDG_CACHE_HOME, HOME=/tmp, a shared NODE_COMPILE_CACHE.
 */
import { chmod, chown, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hubos, tempDir } from '../helpers/run.ts';

const NOBODY = 65_534;

/** Runs `hubos tools --json` (it loads the CLI and the kernel) in an empty folder with `cache` settings. */
async function toolsWith(cache: NodeJS.ProcessEnv) {
  const app = await tempDir('hubos-app-');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: app,
    XDG_CACHE_HOME: '',
    NODE_COMPILE_CACHE: '',
    ...cache,
  };
  delete env.NODE_DISABLE_COMPILE_CACHE;
  return hubos(['tools', '--json'], app, env);
}

/** A folder another user made and anyone may write to. */
async function othersFolder(path: string): Promise<string> {
  await mkdir(path, { recursive: true });
  await chmod(path, 0o777);
  if (process.getuid?.() === 0) await chown(path, NOBODY, NOBODY);
  return path;
}

describe.skipIf(process.platform === 'win32')('the compile cache folder', () => {
  it('is used in a private cache folder', async () => {
    const base = await tempDir('hubos-cache-');
    const result = await toolsWith({ XDG_CACHE_HOME: base });
    expect(result.code, result.stderr).toBe(0);
    const [runtime] = await readdir(join(base, 'hubos/compile-cache'));
    expect(await readdir(join(base, 'hubos/compile-cache', runtime!))).not.toHaveLength(0);
  });

  it('is not used when another user made it and may write to it, and nothing is written there', async () => {
    const base = await tempDir('hubos-cache-');
    await mkdir(join(base, 'hubos'), { mode: 0o755 });
    const planted = await othersFolder(join(base, 'hubos/compile-cache'));
    const result = await toolsWith({ XDG_CACHE_HOME: base, HUBOS_DEBUG: '1' });
    expect(result.code, result.stderr).toBe(0);
    expect(await readdir(planted)).toEqual([]);
    expect(result.stderr).toContain(`the compile cache is off: ${planted}`);
  });

  it("is not used when a folder above it is another user's (a shared XDG_CACHE_HOME)", async () => {
    const base = await othersFolder(join(await tempDir('hubos-cache-'), 'shared'));
    const result = await toolsWith({ XDG_CACHE_HOME: base });
    expect(result.code, result.stderr).toBe(0);
    // hubos may make its folders there, but keeps no compiled code in them.
    const made = await readdir(join(base, 'hubos/compile-cache')).catch(() => []);
    expect(made).toEqual([]);
  });

  it('named by NODE_COMPILE_CACHE and open to other users, stops hubos before it runs more through it', async () => {
    const shared = await othersFolder(join(await tempDir('hubos-cache-'), 'node-cache'));
    const result = await toolsWith({ NODE_COMPILE_CACHE: shared });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`NODE_COMPILE_CACHE is ${shared}, a folder another user may change`);
    expect(result.stdout).toBe('');
  });

  it('named by NODE_COMPILE_CACHE and private, is used', async () => {
    const own = join(await tempDir('hubos-cache-'), 'node-cache');
    const result = await toolsWith({ NODE_COMPILE_CACHE: own });
    expect(result.code, result.stderr).toBe(0);
    const [runtime] = await readdir(own);
    expect(await readdir(join(own, runtime!))).not.toHaveLength(0);
  });
});
