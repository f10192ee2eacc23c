import { describe, expect, it } from 'vitest';
import { createKernel, HubosError, type KernelView, type Plugin } from '../../core/index.ts';

declare module 'hubos' {
  interface HubosServices {
    clock: { now(): number };
  }
}

const boot = (...plugins: Plugin[]) => createKernel({ config: {}, plugins }).boot();
const caught = async (work: () => Promise<unknown>): Promise<HubosError> => {
  try {
    await work();
  } catch (error) {
    if (HubosError.is(error)) return error;
    throw error;
  }
  throw new Error('expected a HubosError');
};

describe('kernel services', () => {
  it('a plugin provides a service and another uses it, typed by HubosServices', async () => {
    let seen: number | undefined;
    const kernel = await boot(
      { name: 'clock', provides: ['clock'], apply: (k) => k.provide('clock', { now: () => 42 }) },
      {
        name: 'user',
        dependencies: ['clock'],
        apply: (k) =>
          k.hooks.ready.tap('user', () => {
            seen = k.service('clock').now();
          }),
      },
    );
    expect(seen).toBe(42);
    expect(kernel.hasService('clock')).toBe(true);
    expect(kernel.service('clock').now()).toBe(42);
    await kernel.close();
  });

  it('asking for a service no plugin provides names the service, the asking plugin and what to add', async () => {
    const error = await caught(() =>
      boot({ name: 'billing', apply: (k) => k.hooks.ready.tap('billing', () => void k.service('cosmos')) }),
    );
    expect(error.code).toBe('SERVICE_NOT_FOUND');
    expect(error.details).toMatchObject({ plugin: 'billing', service: 'cosmos' });
    expect(error.message).toContain('plugin "billing" uses the "cosmos" service');
    expect(error.message).toContain('add the plugin that does');
    expect(error.message).toContain('dependencies of "billing"');
  });

  it('asking before the providing plugin provided it says when it comes', async () => {
    const error = await caught(() =>
      boot(
        { name: 'early', apply: (k) => void k.service('clock') },
        {
          name: 'clock',
          provides: ['clock'],
          apply: (k) => k.hooks.ready.tap('clock', () => k.provide('clock', { now: () => 1 })),
        },
      ),
    );
    expect(error.code).toBe('KERNEL_STATE');
    expect(error.message).toContain(
      'plugin "early" uses the "clock" service, which plugin "clock" provides during boot but has not yet',
    );
  });

  it('a declared service never provided fails the boot, naming the plugin', async () => {
    const error = await caught(() => boot({ name: 'clock', provides: ['clock'], apply: () => undefined }));
    expect(error.code).toBe('PLUGIN_INVALID');
    expect(error.message).toContain(
      'plugin "clock" declares that it provides the "clock" service but did not',
    );
  });

  it('a service is provided once: a second provider or two declarations are refused', async () => {
    const twice = await caught(() =>
      boot(
        { name: 'a', apply: (k) => k.provide('clock', { now: () => 1 }) },
        { name: 'b', apply: (k) => k.provide('clock', { now: () => 2 }) },
      ),
    );
    expect(twice.message).toContain('already provided by plugin "a": plugin "b" cannot provide it again');
    const declared = await caught(() =>
      boot(
        { name: 'a', provides: ['clock'], apply: () => undefined },
        { name: 'b', provides: ['clock'], apply: () => undefined },
      ),
    );
    expect(declared.code).toBe('SERVICE_DUPLICATE');
    expect(declared.message).toContain('plugins "a" and "b" both provide the "clock" service');
  });

  it('code outside plugins (a test, the CLI) can provide and read services on the kernel', async () => {
    const kernel = await boot();
    kernel.provide('clock', { now: () => 7 });
    expect(kernel.service('clock').now()).toBe(7);
    const missing = (() => {
      try {
        kernel.service('nothing');
      } catch (error) {
        return error as HubosError;
      }
    })();
    expect(missing?.code).toBe('SERVICE_NOT_FOUND');
    await kernel.close();
  });

  it("a plugin's view offers the same services as the kernel", async () => {
    let view: KernelView | undefined;
    const kernel = await boot({
      name: 'spy',
      apply: (k) => {
        view = k;
      },
    });
    kernel.provide('clock', { now: () => 3 });
    expect(view?.hasService('clock')).toBe(true);
    expect(view?.service('clock').now()).toBe(3);
    await kernel.close();
  });
});

it('a plugin cannot provide a service another plugin declares (a built-in name taken first)', async () => {
  const error = await caught(() =>
    boot(
      { name: 'impostor', enforce: 'pre', apply: (k) => k.provide('clock', { now: () => 0 }) },
      { name: 'clock', provides: ['clock'], apply: (k) => k.provide('clock', { now: () => 1 }) },
    ),
  );
  expect(error.code).toBe('SERVICE_DUPLICATE');
  expect(error.message).toBe(
    'plugin "impostor" cannot provide the "clock" service: plugin "clock" declares that it provides it',
  );
});
