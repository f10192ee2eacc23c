/** The rlimits line the init runs, and how a root server tells whether the sandbox user can reach the workspace. */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, ulimitLine } from '../../../../plugins/builtin-tools/bash/limits.ts';
import { closedFolder, reachableBy } from '../../../../plugins/builtin-tools/bash/private-parents.ts';

describe('ulimitLine', () => {
  it('sets every limit, soft and hard, in the units bash counts', () => {
    expect(ulimitLine()).toBe(
      [
        `ulimit -u ${DEFAULT_LIMITS.processes}`,
        `ulimit -d ${DEFAULT_LIMITS.memoryBytes / 1024}`,
        `ulimit -t ${DEFAULT_LIMITS.cpuSeconds}`,
        `ulimit -f ${DEFAULT_LIMITS.fileBytes / 1024}`,
      ]
        .map((line) => `${line} 2>/dev/null`)
        .join('; '),
    );
  });

  it('takes the configured ones over the defaults', () => {
    const line = ulimitLine({ processes: 64, fileBytes: 4096 });
    expect(line).toContain('ulimit -u 64 ');
    expect(line).toContain('ulimit -f 4 ');
    expect(line).toContain(`ulimit -t ${DEFAULT_LIMITS.cpuSeconds} `);
  });
});

describe('reachableBy / closedFolder', () => {
  const me = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const other = { uid: me.uid === 65534 ? 65533 : 65534, gid: me.gid === 65534 ? 65533 : 65534 };
  let base: string;
  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'hubos-reach-')));
    chmodSync(base, 0o755);
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('follows the mode bits of every folder above the path', () => {
    mkdirSync(join(base, 'open/closed/inner'), { recursive: true });
    chmodSync(join(base, 'open'), 0o755);
    chmodSync(join(base, 'open/closed'), 0o700);
    const deep = join(base, 'open/closed/inner/ws');
    expect(reachableBy(join(base, 'open/ws'), other)).toBe(true);
    expect(reachableBy(deep, other)).toBe(false);
    expect(closedFolder(deep, other)).toBe(join(base, 'open/closed'));
    // The owner's own 0700 folder is open to it.
    expect(reachableBy(deep, me)).toBe(true);
  });

  it('reads the group bits for a member of the folder group', (context) => {
    if (me.uid !== 0) return context.skip('changing a folder owner needs root');
    mkdirSync(join(base, 'group'));
    chownSync(join(base, 'group'), 0, other.gid);
    chmodSync(join(base, 'group'), 0o710);
    expect(reachableBy(join(base, 'group/ws'), other)).toBe(true);
    chmodSync(join(base, 'group'), 0o701);
    expect(reachableBy(join(base, 'group/ws'), other)).toBe(false);
  });
});
