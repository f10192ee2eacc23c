// Loaded with --import into a server the concurrent-runs bench measures: sends the bench its memory
// every 50 ms over the IPC channel, and collects garbage when asked (its idle baseline).
if (process.send) {
  const sample = () => {
    const { rss, heapUsed } = process.memoryUsage();
    process.send({ rss, heapUsed });
  };
  setInterval(sample, 50).unref();
  process.on('message', (message) => {
    if (message === 'gc') {
      globalThis.gc?.();
      sample();
      process.send('gc-done');
    }
  });
  process.channel?.unref();
}
