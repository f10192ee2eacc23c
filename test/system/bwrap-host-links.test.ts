/**
 * A root server whose workspace the sandbox user cannot reach by its path: the /etc files the
 * sandbox shows are links the server resolves itself (`/etc/resolv.conf` → `/run/systemd/...`), so
 * none of them can be made to lead into the workspace and from there anywhere on the host. Runs in
 * a mount namespace of its own with a copy of /etc whose resolv.conf is such a link, as on a
 * systemd-resolved host. Needs root and Debian's bubblewrap; skips, saying so, otherwise.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const ROOT = process.getuid?.() === 0;
const REPO = join(import.meta.dirname, '../..');

let base: string | undefined;
afterAll(() => {
  if (base) rmSync(base, { recursive: true, force: true });
});

/** Two calls in one workspace; prints their outputs as one JSON line. */
const CALLS = `const [repo, ws, ...commands] = process.argv.slice(2);
const { bashTool } = await import(repo + '/plugins/builtin-tools/bash/index.ts');
const { invokeTool } = await import(repo + '/testing/index.ts');
const { createSandbox } = await import(repo + '/core/index.ts');
const tool = bashTool({ sandbox: { kind: 'bwrap' } });
const outputs = [];
for (const command of commands) {
  const result = await invokeTool(tool, { command, timeout: 20000 }, { sandbox: createSandbox(ws) });
  outputs.push(result.ok ? result.output : { error: result.error.message });
}
console.log(JSON.stringify(outputs));
`;

/** In the namespace: the copy of /etc in place, and a fresh /run with the resolver's file in it. */
const NAMESPACE = `mount --bind "$1" /etc && mount -t tmpfs -o mode=0755 hubos-run /run &&
mkdir -p /run/systemd/resolve && echo 'nameserver 127.0.0.53' > /run/systemd/resolve/stub-resolv.conf &&
shift && exec "$@"`;

it('shows /etc/resolv.conf, a link through /run, as the host file, never what the workspace makes of it', (context) => {
  if (!ROOT) return context.skip('needs root (CI runs as root)');
  base = mkdtempSync(join(tmpdir(), 'hubos-links-'));
  chmodSync(base, 0o755);
  const etc = join(base, 'etc');
  cpSync('/etc', etc, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
  rmSync(join(etc, 'resolv.conf'), { force: true });
  symlinkSync('../run/systemd/resolve/stub-resolv.conf', join(etc, 'resolv.conf'));
  // A host file the sandbox user could read, were it shown: it is not.
  const marker = join(base, 'marker.txt');
  writeFileSync(marker, 'host file\n');
  chmodSync(marker, 0o644);
  const closed = join(base, 'closed');
  mkdirSync(closed, { mode: 0o700 });
  const ws = join(closed, 'ws');
  mkdirSync(ws);
  const script = join(base, 'calls.mjs');
  writeFileSync(script, CALLS);
  const attack = 'mkdir -p systemd/resolve && ln -sfn / systemd/resolve/stub-resolv.conf';
  const result = spawnSync(
    'unshare',
    // biome-ignore format: one flag and its value per line
    [
      '--mount', '--propagation', 'private',
      '/bin/sh', '-c', NAMESPACE, 'hubos-test', etc,
      process.execPath, script, pathToFileURL(REPO).href, ws, attack, `cat /etc/resolv.conf; cat /etc/resolv.conf${marker}`,
    ],
    { encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
  );
  const line = result.stdout.trim().split('\n').at(-1) ?? '';
  expect(line.startsWith('['), `${result.stderr}${result.stdout}`).toBe(true);
  const [first, second] = JSON.parse(line) as { exitCode: number; stdout: string; stderr: string }[];
  expect(first).toMatchObject({ exitCode: 0 });
  expect(second?.stdout).not.toContain('host file');
  expect(second?.stdout).toBe('nameserver 127.0.0.53\n');
});
