// The usage chart above the runs list: tokens (bars) and cost per hour or day from GET /usage.
// Uses app.js's request, responseError, h and API (classic-script globals).

import { cost, plural, tokens } from './studio-format.js';

const SVG = 'http://www.w3.org/2000/svg';
const RANGE = { hour: 24 * 3_600_000, day: 30 * 86_400_000 };

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  node.append(...children);
  return node;
}

const label = (start, bucket) => {
  const date = new Date(start);
  return bucket === 'hour'
    ? date.toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
    : date.toLocaleDateString([], { month: 'short', day: 'numeric' });
};

/** Draws a report's buckets: one bar per bucket (input tokens under output tokens), a title per bar. */
export function drawUsage(figure, report) {
  const buckets = Array.isArray(report?.buckets) ? report.buckets : [];
  const totals = report?.totals ?? {};
  const most = Math.max(1, ...buckets.map((b) => (b.inputTokens ?? 0) + (b.outputTokens ?? 0)));
  const width = 600;
  const height = 80;
  const step = width / Math.max(1, buckets.length);
  const bars = buckets.map((bucket, index) => {
    const input = bucket.inputTokens ?? 0;
    const output = bucket.outputTokens ?? 0;
    const x = index * step + step * 0.1;
    const w = Math.max(1, step * 0.8);
    const inputHeight = (input / most) * height;
    const outputHeight = (output / most) * height;
    return svg(
      'g',
      { class: 'usage-bucket', 'data-start': bucket.start },
      svg(
        'title',
        {},
        `${label(bucket.start, report.bucket)}: ${tokens(input)} in, ${tokens(output)} out, ${plural(bucket.runs ?? 0, 'run')}, ${cost(bucket.cost)}`,
      ),
      svg('rect', { class: 'usage-in', x, y: height - inputHeight, width: w, height: inputHeight }),
      svg('rect', {
        class: 'usage-out',
        x,
        y: height - inputHeight - outputHeight,
        width: w,
        height: outputHeight,
      }),
    );
  });
  const summary = `${tokens(totals.inputTokens ?? 0)} tokens in, ${tokens(totals.outputTokens ?? 0)} out, ${plural(totals.runs ?? 0, 'run')}, ${cost(totals.cost)} over the last ${report.bucket === 'hour' ? '24 hours' : '30 days'}`;
  const chart = svg(
    'svg',
    {
      class: 'usage-bars',
      viewBox: `0 0 ${width} ${height}`,
      preserveAspectRatio: 'none',
      role: 'img',
      'aria-label': `Tokens per ${report.bucket}: ${summary}`,
    },
    ...bars,
  );
  const caption = h('figcaption', { class: 'usage-summary' }, summary);
  if (report.unpricedModels?.length)
    caption.append(` (no price for ${report.unpricedModels.join(', ')}: their cost is not counted)`);
  // The range's ends under the bars: where the time axis starts and stops.
  const ends = h(
    'div',
    { class: 'usage-ends', 'aria-hidden': 'true' },
    h('span', {}, buckets.length ? label(buckets[0].start, report.bucket) : ''),
    h('span', {}, buckets.length ? label(buckets.at(-1).start, report.bucket) : ''),
  );
  figure.replaceChildren(chart, ends, caption);
  figure.dataset.buckets = String(buckets.length);
}

/** Loads and draws the caller's usage (hour buckets: the last 24 hours; day: the last 30 days). */
export async function loadUsage(figure, bucket, filters = {}) {
  const to = Date.now();
  const query = new URLSearchParams({ bucket, by: 'none', from: String(to - RANGE[bucket]), to: String(to) });
  if (filters.agent) query.set('agent', filters.agent);
  if (filters.via) query.set('via', filters.via);
  try {
    const response = await request(`${API}/usage?${query}`, { headers: { accept: 'application/json' } });
    if (!response.ok) throw await responseError(response);
    drawUsage(figure, await response.json());
  } catch (error) {
    figure.replaceChildren(
      h(
        'figcaption',
        { class: 'usage-summary error' },
        `${error.code ?? 'NETWORK_ERROR'}: no usage: ${error.message}`,
      ),
    );
  }
}
