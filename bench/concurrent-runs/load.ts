/**
 * The load side of the concurrent-runs bench, in its own process (so it does not share the
 * server's or the fake model's event loop): opens RUNS keep-alive connections to the server (a
 * burst of GET HEALTH), tells the bench, and on its word POSTs one run on each at once (JSON, or
 * SSE with STREAM=1) while timing GET HEALTH every 50 ms on a connection of its own. Prints the
 * runs' durations and the health times as JSON. Every run must end with the answer `done`.
 */
import { Agent, request } from 'undici';

const base = process.env.BASE_URL!;
const runs = Number(process.env.RUNS);
const stream = process.env.STREAM === '1';
const health = `${base}${process.env.HEALTH}`;
const route = `${base}${process.env.ROUTE}`;
const body = JSON.stringify({ input: 'Call the echo tool with the text tick, then say done.' });
const pool = new Agent({ connections: null, keepAliveTimeout: 60_000, headersTimeout: 0, bodyTimeout: 0 });
const prober = new Agent({ connections: 1, keepAliveTimeout: 60_000 });

async function get(url: string, dispatcher: Agent) {
  const res = await request(url, { dispatcher });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode}`);
}

async function run(): Promise<number> {
  const start = performance.now();
  const res = await request(route, {
    method: 'POST',
    dispatcher: pool,
    headers: { 'content-type': 'application/json', ...(stream ? { accept: 'text/event-stream' } : {}) },
    body,
  });
  const text = await res.body.text();
  const ms = performance.now() - start;
  const ok = stream ? text.includes('"text":"done"') : JSON.parse(text).text === 'done';
  if (res.statusCode !== 200 || !ok) throw new Error(`run answered ${res.statusCode}: ${text.slice(0, 300)}`);
  return ms;
}

// Connections first: the burst of runs is not a burst of TCP handshakes.
await Promise.all(Array.from({ length: runs }, () => get(health, pool)));
await get(health, prober);
process.send!('ready');
await new Promise((resolve) => process.once('message', resolve));

const healthMs: number[] = [];
let loading = true;
const probing = (async () => {
  while (loading) {
    const start = performance.now();
    await get(health, prober);
    healthMs.push(performance.now() - start);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
})();
const durations = await Promise.all(Array.from({ length: runs }, run));
loading = false;
await probing;
process.send!({ durations, healthMs }, () => process.exit(0));
