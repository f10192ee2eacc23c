/**
 * Scale-out of the run route: requests/s and p50/p99 of POST /api/agents/:name/run (server.bench.ts's
 * agent: one instant tool call, then an answer) on `hubos serve` processes sharing one PostgreSQL and
 * one Redis, 1 instance against 3 (autocannon spreading its connections round-robin over them), and
 * 1 instance on SQLite and the local bus as the baseline of what scale-out costs on one machine.
 * Skips when PostgreSQL or Redis is unreachable.
 */

import {
  autocannon,
  CAVEAT,
  Deployment,
  type LoadResult,
  median,
  queryPostgres,
  withServices,
} from './scale-services.ts';

async function bench(): Promise<void> {
  const CONNECTIONS = 12; // a multiple of 3: each of 3 instances gets 4
  const SECONDS = 4;
  const ROUNDS = 3;
  const body = '{"input":"go"}';

  const sqlite = new Deployment('sqlite');
  const shared = new Deployment('postgres');
  try {
    const [single, ...cluster] = await Promise.all([
      sqlite.start(),
      shared.start(),
      shared.start(),
      shared.start(),
    ]);
    const route = (instance: { url: string }) => `${instance.url}/api/agents/bench/run`;
    const scenarios = {
      // One instance of the shared deployment takes all the load; the other two idle on the bus.
      sqlite: [route(single!)],
      one: [route(cluster[0]!)],
      three: cluster.map(route),
    };
    type Name = keyof typeof scenarios;
    const names = Object.keys(scenarios) as Name[];
    // Warm-up: JIT, pools and connections of every instance.
    for (const name of names)
      await autocannon(scenarios[name], { connections: CONNECTIONS, seconds: 1, body });

    // Alternating rounds, medians: the machine's noise hits every scenario alike.
    const results: Record<Name, LoadResult[]> = { sqlite: [], one: [], three: [] };
    for (let round = 0; round < ROUNDS; round++)
      for (const name of names)
        results[name].push(
          await autocannon(scenarios[name], { connections: CONNECTIONS, seconds: SECONDS, body }),
        );
    const summary = (name: Name) => ({
      rps: median(results[name].map((r) => r.rps)),
      p50: median(results[name].map((r) => r.p50)),
      p99: median(results[name].map((r) => r.p99)),
      errors: results[name].reduce((sum, r) => sum + r.errors, 0),
    });
    const s = summary('sqlite');
    const one = summary('one');
    const three = summary('three');
    // Every answered run is a record in the shared schema: the load went through PostgreSQL.
    const count = await queryPostgres<{ count: string }>(
      `SELECT count(*) FROM "${shared.schema}".hubos_runs WHERE status = 'completed'`,
    ).then(
      (rows) => rows[0]?.count ?? '0',
      () => '?',
    );
    const stalled = names.filter((name) => results[name].some((r) => r.rps < 1));
    if (stalled.length > 0)
      console.log(
        `Scale-out run route: a round of ${stalled.join(', ')} answered nothing: was PostgreSQL or Redis restarted meanwhile? The medians below are not to be trusted.`,
      );
    const line = (label: string, r: ReturnType<typeof summary>) =>
      `${label} ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms`;
    console.log(
      `Scale-out run route: ${line('PostgreSQL+Redis 3 instances', three)}; ${line('1 instance', one)}; ` +
        `3/1 ${(three.rps / one.rps).toFixed(2)}x; ` +
        `baseline ${line('SQLite+local bus 1 instance', s)}; PostgreSQL+Redis 1 instance/SQLite ${(one.rps / s.rps).toFixed(2)}x; ` +
        `errors ${one.errors + three.errors + s.errors}; ${count} run records in PostgreSQL; ` +
        `${CONNECTIONS} connections, medians of ${ROUNDS} alternating ${SECONDS} s rounds (caveat: ${CAVEAT})`,
    );
  } finally {
    await Promise.all([sqlite.cleanup(), shared.cleanup()]);
  }
}

await withServices('Scale-out run route', { postgres: true, redis: true }, bench);
