// B2 for `hubos serve`: a bare Hono route doing the least work any agent server must do for one run,
// two chat-completion calls to the model (undici, keep-alive pool) and one direct tool call between them.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { Agent, request } from 'undici';

const base = process.env.FAKE_URL;
// BENCH_MODEL_CONNECTIONS=0: no cap (the global fetch's pool), for benches with many calls in flight.
const cap = Number(process.env.BENCH_MODEL_CONNECTIONS ?? 64);
const dispatcher = new Agent({ connections: cap > 0 ? cap : null });
const tools = [
  {
    type: 'function',
    function: {
      name: 'echo',
      description: 'Echo the text back.',
      parameters: {
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
        additionalProperties: false,
      },
    },
  },
];
const echo = ({ text }) => text;

async function chat(messages) {
  const res = await request(`${base}/chat/completions`, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
    body: JSON.stringify({ model: 'fake', messages, tools }),
  });
  if (res.statusCode !== 200) throw new Error(`model answered ${res.statusCode}: ${await res.body.text()}`);
  return (await res.body.json()).choices[0].message;
}

// The run-route budget bench adds this much busy work to each run (µs of CPU; 0 by default).
const workUs = Number(process.env.BENCH_WORK_US ?? 0);
const work = () => {
  for (const end = performance.now() + workUs / 1000; performance.now() < end; );
};

const app = new Hono();
// The least a health route does, for benches that time one beside the runs.
app.get('/health', (c) => c.json({ status: 'ok' }));
app.post('/run', async (c) => {
  if (workUs > 0) work();
  const { input } = await c.req.json();
  const messages = [{ role: 'user', content: input }];
  for (let step = 0; step < 5; step++) {
    const msg = await chat(messages);
    messages.push(msg);
    if (!msg.tool_calls?.length) return c.json({ text: msg.content, steps: step + 1 });
    for (const call of msg.tool_calls) {
      const out =
        call.function.name === 'echo'
          ? echo(JSON.parse(call.function.arguments))
          : `unknown tool ${call.function.name}`;
      messages.push({ role: 'tool', tool_call_id: call.id, content: String(out) });
    }
  }
  return c.json({ error: 'too many steps' }, 500);
});
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' });
