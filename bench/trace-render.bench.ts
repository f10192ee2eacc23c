/**
 * The run page's trace of a big run in Chromium: a real run of a ScriptedModel agent with 125
 * model calls of 3 tool calls each (500 steps, then its answer), served by a listening HubOS, opened
 * at #/runs/<id>. Timed by the page's own performance marks: from its steps' arrival (trace-data)
 * to the trace painted (trace-painted, after the next frame). Target: ≤ 1 s for 500 steps; a
 * 20-step run's trace is the baseline of the same run. Needs Debian's chromium at /usr/bin/chromium.
 */

import { existsSync } from 'node:fs';
import { defineTool } from '../core/index.ts';
import { HubOS } from '../plugins/hubos/hubos.ts';
import { CHROMIUM, launchChromium } from '../test/helpers/chromium.ts';
import { bootKernel, ScriptedModel } from '../testing/index.ts';

const LOADS = 7;
const TARGET_MS = 1_000;

const note = defineTool({
  name: 'note',
  description: 'Keeps a note.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  handler: (_options, { input }) => ({ kept: input.text }),
});

/** A script of `rounds` model calls of 3 tool calls each, then the answer. */
function script(rounds: number) {
  const usage = { inputTokens: 900, outputTokens: 120 };
  return [
    ...Array.from({ length: rounds }, (_, round) => ({
      toolCalls: [0, 1, 2].map((i) => ({ name: 'note', input: { text: `round ${round} note ${i}` } })),
      usage,
    })),
    { text: 'All noted.', usage },
  ];
}

if (!existsSync(CHROMIUM)) {
  console.log(`Trace render: skipped (no chromium at ${CHROMIUM}: apt-get install -y chromium)`);
} else {
  const model = new ScriptedModel([], { modelId: 'bench-model' });
  const kernel = await bootKernel({
    config: { agents: { helper: { model, tools: ['note'], maxSteps: 1000 } } },
    plugins: [
      { name: 'note-tool', apply: (k) => k.hooks.registerTools.tap('note-tool', (r) => r.register(note)) },
    ],
  });
  const hubos = new HubOS({ kernel, name: 'bench', port: 0, rateLimit: false });
  hubos.registerAgent('helper', kernel.agent('helper'));
  const url = await hubos.serve();
  const browser = await launchChromium('the trace render bench');
  try {
    const runOf = async (rounds: number) => {
      model.push(...script(rounds));
      const response = await fetch(`${url}/api/agents/helper/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: `take ${rounds * 3} notes` }),
      });
      const { runId } = (await response.json()) as { runId: string };
      const steps = (await (await fetch(`${url}/api/runs/${runId}/steps`)).json()) as { steps: unknown[] };
      return { runId, steps: steps.steps.length };
    };
    const times = async (runId: string, steps: number) => {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      const painted: number[] = [];
      const written: number[] = [];
      for (let i = 0; i < LOADS; i++) {
        await page.goto('about:blank'); // a new document each time, not a hash change
        await page.goto(`${url}/#/runs/${runId}`);
        await page.waitForSelector(`#trace[data-steps="${steps}"][data-painted]`, { timeout: 30_000 });
        // The page's marks: trace-data (steps arrived), trace-written (rows in the document), trace-painted.
        const [write, paint] = await page.evaluate(() => {
          const at = (name: string) =>
            performance.getEntriesByName(name, 'mark').at(-1)?.startTime ?? Number.NaN;
          return [at('trace-written') - at('trace-data'), at('trace-painted') - at('trace-data')];
        });
        written.push(write!);
        painted.push(paint!);
      }
      await page.close();
      const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
      const worst = Math.max(...painted);
      return { median: median(painted), worst, written: median(written) };
    };
    const big = await runOf(125);
    const small = await runOf(5);
    const baseline = await times(small.runId, small.steps);
    const subject = await times(big.runId, big.steps);
    console.log(
      `Trace render (run page in Chromium, from the steps' arrival to painted, median of ${LOADS} loads): ` +
        `${big.steps} steps ${subject.median.toFixed(0)} ms (rows written after ${subject.written.toFixed(0)} ms; worst ${subject.worst.toFixed(0)} ms; target ≤ ${TARGET_MS} ms: ${subject.median <= TARGET_MS ? 'met' : 'MISSED'}); ` +
        `${(subject.median / baseline.median).toFixed(1)}x a ${small.steps}-step trace (${baseline.median.toFixed(0)} ms)`,
    );
  } finally {
    await browser.close();
    await hubos.close();
    await kernel.close();
  }
}
