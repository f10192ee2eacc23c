/**
 * The bash tool's resource limits, tried the way they were attacked: a fork loop, a 3 GiB
 * allocation, a CPU spin, an oversized file — and an ordinary `npm install` that must still work
 * under the defaults. Needs Debian's bubblewrap; the Node cases need the system's node and npm.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BashOptions, bashTool, DEFAULT_LIMITS } from '../../plugins/builtin-tools/bash/index.ts';
import { invokeTool } from '../../testing/index.ts';
import { outputOf, tempWorkspace } from '../fixtures/bash/workspace.ts';

const ROOT = process.getuid?.() === 0;
const NODE = '/usr/bin/node';
const NPM = '/usr/bin/npm';
const NO_NODE = `needs the system's node and npm at ${NODE} and ${NPM} (apt-get install nodejs npm)`;

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  ws = tempWorkspace();
});
afterEach(() => ws.remove());

async function run(command: string, options: BashOptions = { sandbox: { kind: 'bwrap' } }, timeout = 60_000) {
  return outputOf(await invokeTool(bashTool(options), { command, timeout }, { sandbox: ws.sandbox }));
}

/** Allocates `mib` MiB in 64 MiB buffers it fills (so the memory is really used), then says so. */
const allocate = (mib: number) =>
  `${NODE} -e "const kept = []; for (let i = 0; i < ${mib / 64}; i++) kept.push(Buffer.alloc(64 * 2 ** 20, 1)); console.log('allocated ${mib}')"`;

describe('under the default limits, in bubblewrap', () => {
  it('stops a fork loop at the process limit: 1,500 processes do not go through', async () => {
    expect(DEFAULT_LIMITS.processes).toBeLessThan(1500);
    // dash gives up at the first failed fork (bash would retry for half a minute).
    const output = await run(
      `sh -c 'i=0; while [ $i -lt 1500 ]; do sleep 300 & i=$((i+1)); done; echo spawned all'; echo "sh=$?"`,
    );
    expect(output.stdout).not.toContain('spawned all');
    expect(output.stdout).toMatch(/sh=[1-9]/);
    expect(output.stderr).toMatch(/Cannot fork|Resource temporarily unavailable/);
    expect(output.timedOut).toBe(false);
  });

  it.skipIf(!existsSync(NODE))('refuses a 3 GiB allocation, and allows a moderate one', async () => {
    const big = await run(allocate(3072));
    expect(big.exitCode).not.toBe(0);
    expect(big.stdout).not.toContain('allocated');
    expect(big.stderr).toMatch(/allocation failed|out of memory/i);
    const moderate = await run(allocate(512));
    expect(moderate).toMatchObject({ exitCode: 0, stdout: 'allocated 512\n' });
  });

  it.skipIf(!existsSync(NODE) || !existsSync(NPM))(
    'lets npm install a small local package',
    async (context) => {
      if (!existsSync(NPM)) return context.skip(NO_NODE);
      mkdirSync(join(ws.dir, 'tiny'));
      writeFileSync(join(ws.dir, 'tiny/package.json'), JSON.stringify({ name: 'tiny', version: '1.0.0' }));
      writeFileSync(join(ws.dir, 'tiny/index.js'), 'module.exports = "tiny works";\n');
      mkdirSync(join(ws.dir, 'app'));
      writeFileSync(join(ws.dir, 'app/package.json'), JSON.stringify({ name: 'app', version: '1.0.0' }));
      const output = await run(
        [
          'cd tiny && npm pack --silent > /dev/null && cd ../app',
          'npm install ../tiny/tiny-1.0.0.tgz --offline --no-audit --no-fund --loglevel=error',
          `${NODE} -e "console.log(require('tiny'))"`,
        ].join(' && '),
        { sandbox: { kind: 'bwrap' } },
        120_000,
      );
      expect(output).toMatchObject({ exitCode: 0, stdout: expect.stringContaining('tiny works\n') });
    },
  );
});

describe('configured limits', () => {
  it('stop a CPU-spinning command at its CPU time', async () => {
    const output = await run('while :; do :; done', {
      sandbox: { kind: 'bwrap' },
      limits: { cpuSeconds: 1 },
    });
    expect(output.timedOut).toBe(false);
    // SIGXCPU (24) at the limit, or SIGKILL (9) where soft and hard limits meet: 128 + N.
    expect([128 + 24, 128 + 9]).toContain(output.exitCode);
  });

  it('stop a file growing past the size limit', async () => {
    const output = await run('head -c 2M /dev/zero > big; echo "head=$?"; stat -c %s big', {
      sandbox: { kind: 'bwrap' },
      limits: { fileBytes: 1024 * 1024 },
    });
    // SIGXFSZ (25): 128 + 25; the file stops at the limit.
    expect(output.stdout).toBe(`head=${128 + 25}\n${1024 * 1024}\n`);
  });

  it('cap what the in-memory scratch folders hold, all files together, at the file-size limit', async () => {
    // Two files under the limit each, more than it together: the second write runs out of space.
    const output = await run(
      'for d in /tmp /var/tmp /run /dev/shm; do head -c 700K /dev/zero > $d/a; head -c 700K /dev/zero > $d/b 2>/dev/null; echo "$d=$?"; done',
      { sandbox: { kind: 'bwrap' }, limits: { fileBytes: 1024 * 1024 } },
    );
    expect(output.stdout).toBe('/tmp=1\n/var/tmp=1\n/run=1\n/dev/shm=1\n');
  });

  it('hold unsandboxed too (sandbox kind "none"): memory, CPU time and file size', async () => {
    const none: BashOptions = {
      sandbox: { kind: 'none' },
      limits: { cpuSeconds: 1, fileBytes: 1024 * 1024 },
    };
    const file = await run('head -c 2M /dev/zero > big; echo "head=$?"; stat -c %s big', none);
    expect(file.stdout).toBe(`head=${128 + 25}\n${1024 * 1024}\n`);
    const cpu = await run('while :; do :; done', none);
    expect([128 + 24, 128 + 9]).toContain(cpu.exitCode);
    if (existsSync(NODE)) {
      const big = await run(allocate(3072), none);
      expect(big.exitCode).not.toBe(0);
      expect(big.stdout).not.toContain('allocated');
    }
    // Root passes RLIMIT_NPROC by privilege: unsandboxed, only a non-root server is held to it.
    if (!ROOT) {
      const fork = await run(
        `sh -c 'i=0; while [ $i -lt 1500 ]; do sleep 300 & i=$((i+1)); done; echo spawned all'; echo "sh=$?"`,
        none,
      );
      expect(fork.stdout).not.toContain('spawned all');
    }
  });
});
