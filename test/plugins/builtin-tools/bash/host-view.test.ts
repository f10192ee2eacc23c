/** What bubblewrap shows of the host: an allow-list of the system, and nothing of the server's own folders. */
import { existsSync, lstatSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
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

const shown = (paths: string[], path: string) =>
  paths.some((root) => path === root || path.startsWith(`${root}/`));
const paths = (binds: [string, string][]) => binds.map(([, path]) => path);

describe('hostView', () => {
  it('binds the system read-only: /usr, the top-level library folders (or their links), a few /etc files', () => {
    const view = hostView({ workspace: ws, shell: SHELL });
    expect(paths(view.readOnly)).toContain('/usr');
    for (const top of ['/bin', '/lib']) {
      if (lstatSync(top).isSymbolicLink()) expect(view.symlinks.map(([, path]) => path)).toContain(top);
      else expect(paths(view.readOnly)).toContain(top);
    }
    for (const file of ['/etc/passwd', '/etc/group'])
      if (existsSync(file)) expect(paths(view.readOnly)).toContain(file);
  });

  it('binds each path from what it resolves to here, so bubblewrap follows no link itself', () => {
    for (const [source, path] of hostView({ workspace: ws, shell: SHELL }).readOnly)
      expect(source, path).toBe(realpathSync(path));
  });

  it('shows nothing else of the host: no /etc as a whole, /home, /srv, /var, /run, /tmp, server folders', () => {
    const { readOnly, exposed } = hostView({ workspace: ws, shell: SHELL });
    const all = [...paths(readOnly), ...readOnly.map(([source]) => source), ...exposed];
    for (const path of [
      '/',
      '/etc',
      '/etc/shadow',
      // The host's TLS keys: only the CA trust stores are there.
      '/etc/ssl',
      '/etc/ssl/private',
      '/etc/pki',
      '/etc/pki/tls/private',
      '/home',
      '/srv',
      '/var',
      '/run',
      '/tmp',
      '/opt',
      HOME,
      CWD,
      ws,
    ])
      expect(shown(all, path), path).toBe(false);
  });

  it('binds what `expose` names and a shell outside the system, after the hidden folders', () => {
    const exposed = join(CWD, 'node_modules');
    const view = hostView({ workspace: ws, shell: SHELL, expose: [exposed, '/usr/share', '/nonexistent'] });
    expect(view.exposed).toEqual([realpathSync(exposed)]); // /usr/share is there already
    expect(hostView({ workspace: ws, shell: join(CWD, 'package.json') }).exposed).toEqual([
      join(CWD, 'package.json'),
    ]);
  });

  it('hides the server folders that lie inside a bound one, never the workspace or the shell', () => {
    const view = hostView({ workspace: ws, shell: SHELL, hide: ['/usr/share/doc', '/usr/bin', ws] });
    expect(view.hide).toEqual(['/usr/share/doc']);
  });
});
