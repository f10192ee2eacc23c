import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HubOS } from '../../../plugins/hubos/hubos.ts';

const opened: Server[] = [];
const savedPort = process.env.PORT;
afterEach(async () => {
  for (const server of opened.splice(0)) await new Promise((resolve) => server.close(resolve));
  if (savedPort === undefined) delete process.env.PORT;
  else process.env.PORT = savedPort;
});

describe('HubOS.serve: where it listens', () => {
  it('a busy port is LISTEN_FAILED naming the port and how to pick another', async () => {
    const busy = createServer();
    opened.push(busy);
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    const hubos = new HubOS({ port, rateLimit: false });
    await expect(hubos.serve()).rejects.toMatchObject({
      code: 'LISTEN_FAILED',
      message: `port ${port} is already in use (127.0.0.1:${port}): stop what listens there, or pick another port with hubos serve --port <n>, PORT=<n>, or server.port in agent.config.ts (0 picks a free one)`,
      details: { host: '127.0.0.1', port },
    });
  });

  it('PORT that is not a port is CONFIG_INVALID saying so, not a RangeError about NaN', async () => {
    for (const value of ['abc', '3.5', '70000']) {
      process.env.PORT = value;
      await expect(new HubOS({ rateLimit: false }).serve()).rejects.toMatchObject({
        code: 'CONFIG_INVALID',
        message: `PORT must be a whole number from 0 to 65535 (0 picks a free port), got "${value}": set PORT to one, or pass --port <n>`,
      });
    }
  });
});
