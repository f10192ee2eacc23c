// Loaded with --import into a server the concurrent-runs bench measures: sends the bench its memory
// every 50 ms over the IPC channel, collects garbage when asked (its idle baseline, and once with
// every run in flight: what the runs hold), and times its event loop's delays from the baseline on
// (how long a request may wait, whoever sends it).
import { monitorEventLoopDelay } from 'node:perf_hooks';

if (process.send) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  const sample = () => {
    const { rss, heapUsed } = process.memoryUsage();
    process.send({ rss, heapUsed });
  };
  setInterval(sample, 50).unref();
  process.on('message', (message) => {
    if (message === 'gc') {
      globalThis.gc?.();
      sample();
      delay.disable();
      delay.reset();
      delay.enable();
      process.send('gc-done');
    }
    // With every run in flight: what they hold, garbage collected first.
    if (message === 'held') {
      globalThis.gc?.();
      const { rss, heapUsed } = process.memoryUsage();
      process.send({ heldRss: rss, heldHeap: heapUsed });
    }
    if (message === 'loop') process.send({ loopP99: delay.percentile(99) / 1e6, loopMax: delay.max / 1e6 });
  });
  process.channel?.unref();
}
