// Pieces the experiment views share: how a score, a dataset and a case's input are said, and the
// path of an experiment. Uses app.js's h.

/** A score or a mean in [0, 1], to two places (a missing one is a dash). */
export const score = (value) => (Number.isFinite(value) ? value.toFixed(2) : '—');

export const experimentPath = (id) => `/experiments/${encodeURIComponent(id)}`;
export const experimentHref = (id) => `#/experiments/${encodeURIComponent(id)}`;
export const compareHref = (a, b) => `#/experiments/${encodeURIComponent(a)}/vs/${encodeURIComponent(b)}`;

/** `support · sha256:0123…` : the name and the first digits of its version (the whole in the title). */
export function datasetLabel(dataset) {
  const version = String(dataset?.version ?? '');
  const short = version.length > 15 ? `${version.slice(0, 15)}…` : version;
  return h('span', { class: 'dataset', title: version }, `${dataset?.name ?? '?'} · ${short}`);
}

/** A case's input: its text, or a conversation as `role: text` lines. */
export function inputText(input) {
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return '';
  return input
    .map((message) => {
      const content = message?.content;
      const text =
        typeof content === 'string'
          ? content
          : Array.isArray(content)
            ? content
                .map((part) => (typeof part?.text === 'string' ? part.text : `[${part?.type}]`))
                .join(' ')
            : '';
      return `${message?.role ?? '?'}: ${text}`;
    })
    .join('\n');
}

/** Passed or failed, as a badge (no threshold: nothing to pass). */
export function verdict(passed) {
  if (passed === undefined) return h('span', { class: 'hint' }, 'no threshold');
  return h(
    'span',
    {
      class: 'badge',
      'data-status': passed ? 'completed' : 'failed',
      'data-verdict': passed ? 'pass' : 'fail',
    },
    passed ? 'pass' : 'fail',
  );
}

/** ▲ better / ▼ worse / = same, of `now` against `before` (either missing: nothing to compare). */
export function change(before, now) {
  if (!Number.isFinite(before) || !Number.isFinite(now)) return undefined;
  // Scores are fractions: a difference under half a hundredth is the same score, as shown.
  if (Math.abs(now - before) < 0.005) return 'same';
  return now > before ? 'better' : 'worse';
}

export function changeMark(kind) {
  if (!kind) return h('span', { class: 'hint' }, '—');
  const text = { better: '▲ better', worse: '▼ worse', same: '= same' }[kind];
  return h('span', { class: 'change', 'data-change': kind }, text);
}
