import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKernel, silentLogger } from '../../../core/index.ts';
import mcp from '../../../plugins/mcp/index.ts';
import { fixtureServer, pidsWithArg, until } from './client-helpers.ts';

describe('mcp client: closing the kernel while it boots', () => {
  it('waits for the boot, then stops the servers it started: no child is left running', async () => {
    const marker = `close-during-boot-${randomUUID()}`;
    const kernel = createKernel({
      logger: silentLogger,
      config: { mcp: { servers: { fx: fixtureServer(['--stderr', marker]) } } },
      plugins: [mcp()],
    });
    const booted = kernel.boot().then(
      () => 'booted',
      (error: Error) => `failed: ${error.message}`,
    );
    await kernel.close();
    expect(kernel.state).toBe('closed');
    expect(await booted).toBe('booted');
    await until(() => pidsWithArg(marker).length === 0, 'the fixture server to be gone', 5_000);
  });
});
