/**
 * Hook dispatch: a plugin's taps go through its attributed view (error attribution, tap meta).
 * Baseline: the same taps made directly on the tapable hook, without attribution.
 */
import { AsyncSeriesHook } from 'tapable';
import { tapView } from '../core/hook-utils.ts';
import { opsPerSecond, report } from './measure.ts';

function hookWithTaps(attributed: boolean): AsyncSeriesHook<[{ n: number }]> {
  const hook = new AsyncSeriesHook<[{ n: number }]>(['context']);
  for (let i = 0; i < 10; i++) {
    const fn = async (context: { n: number }) => {
      context.n++;
    };
    if (attributed) tapView(hook, 'bench', `plugin-${i}`).tapPromise(`plugin-${i}`, fn);
    else hook.tapPromise(`plugin-${i}`, fn);
  }
  return hook;
}

const viaViews = hookWithTaps(true);
const direct = hookWithTaps(false);
const attributedOps = await opsPerSecond(() => viaViews.promise({ n: 0 }));
const directOps = await opsPerSecond(() => direct.promise({ n: 0 }));
report('hook call, 10 attributed taps', attributedOps, directOps, 'raw tapable taps');
