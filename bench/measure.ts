/** Runs `fn` for about `ms` milliseconds after a warm-up and returns operations per second. */
export async function opsPerSecond(fn: () => unknown, ms = 500): Promise<number> {
  for (let i = 0; i < 1_000; i++) await fn();
  let count = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    for (let i = 0; i < 100; i++) await fn();
    count += 100;
  }
  return count / ((performance.now() - start) / 1000);
}

export function report(name: string, subject: number, baseline: number, baselineName: string): void {
  const ratio = subject / baseline;
  console.log(
    `${name}: ${Math.round(subject).toLocaleString('en')} ops/s; ${ratio.toFixed(2)}x ${baselineName} (${Math.round(baseline).toLocaleString('en')} ops/s)`,
  );
}
