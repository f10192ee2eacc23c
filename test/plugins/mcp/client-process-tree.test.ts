import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKernel, silentLogger } from '../../../core/index.ts';
import mcp from '../../../plugins/mcp/index.ts';
import { pidsWithArg, STDIO_FIXTURE, until } from './client-helpers.ts';

describe('mcp client: a stdio server started through a wrapper', () => {
  it('leaves none of its processes behind when the kernel closes', async () => {
    const marker = `wrapped-${randomUUID()}`;
    // sh stays as the parent of the real server, which never answers and ignores the end of its input.
    const script = `"${process.execPath}" "${STDIO_FIXTURE}" --silent --stderr ${marker}; echo done >&2`;
    const kernel = createKernel({
      logger: silentLogger,
      config: {
        mcp: {
          restart: { maxAttempts: 1 },
          servers: { w: { command: 'sh', args: ['-c', script], startTimeoutMs: 1_500 } },
        },
      },
      plugins: [mcp()],
    });
    await kernel.boot();
    await kernel.close();
    await until(() => pidsWithArg(marker).length === 0, 'the wrapped server to be stopped', 5_000);
    expect(pidsWithArg(marker)).toEqual([]);
  });
});
