/** What bubblewrap hides of the host: runtime folders (sockets, shared temp) and the server's own folders. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostView } from '../../../../plugins/builtin-tools/bash/host-view.ts';

const HOME = realpathSync(homedir());
const CWD = realpathSync(process.cwd());
const SHELL = '/bin/bash';

let ws: string;
beforeEach(() => {
  ws = realpathSync(mkdtempSync('/tmp/hubos-view-'));
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

describe('hostView', () => {
  it('hides /tmp, /var/tmp, /run and /dev/shm, and the server home, cwd and install folder', () => {
    const { hide } = hostView({ workspace: ws, shell: SHELL });
    // /var/run is hidden through /run where it is a symlink to it (most systems).
    for (const folder of ['/tmp', '/var/tmp', '/run', '/var/run', '/dev/shm'])
      expect(hide).toContain(realpathSync(folder));
    // Hidden itself, or through a hidden folder holding it (a checkout under /tmp).
    const hidden = (path: string) => hide.some((folder) => path === folder || path.startsWith(`${folder}/`));
    expect(hidden(HOME)).toBe(true);
    expect(hidden(CWD)).toBe(true); // the repository: also HubOS's install folder here
  });

  it('never hides the system, the workspace or a folder inside it', () => {
    const inside = join(ws, 'sub');
    mkdirSync(inside);
    const previous = process.cwd();
    process.chdir(inside);
    try {
      const { hide } = hostView({ workspace: ws, shell: SHELL });
      expect(hide).not.toContain(inside);
      expect(hide).not.toContain(ws);
      for (const system of ['/', '/usr', '/etc', '/bin']) expect(hide).not.toContain(system);
    } finally {
      process.chdir(previous);
    }
  });

  it('keeps a folder that holds the shell', () => {
    const { hide } = hostView({ workspace: ws, shell: join(HOME, 'bin/bash') });
    expect(hide).toContain(HOME); // no shell there: nothing to keep
    const shellInCwd = join(CWD, 'package.json');
    expect(hostView({ workspace: ws, shell: shellInCwd }).hide).not.toContain(CWD);
  });

  it('lists each folder once, parents before what is inside them', () => {
    const { hide } = hostView({ workspace: ws, shell: SHELL });
    expect(new Set(hide).size).toBe(hide.length);
    for (const [index, folder] of hide.entries()) {
      expect(hide.slice(index + 1).some((other) => folder.startsWith(`${other}/`))).toBe(false);
    }
  });

  it('binds back read-only what `expose` names under a hidden folder, nothing else', () => {
    const exposed = join(CWD, 'node_modules');
    const view = hostView({ workspace: ws, shell: SHELL, expose: [exposed, '/usr/share', '/nonexistent'] });
    expect(view.readOnly).toEqual([exposed]);
  });
});
