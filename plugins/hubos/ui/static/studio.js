// The studio: the Runs, run, compare, Experiments and Agents views of the page, by hash (#/runs,
// #/runs/<id>, #/compare/<a>/<b>, #/experiments, #/experiments/<id>, #/experiments/<a>/vs/<b>, #/agents). A module that runs after app.js and uses its helpers ($, h,
// showView, state, …): classic scripts leave their declarations in the global scope.

import { showAgents } from './agents-view.js';
import { leaveCompare, showCompare } from './compare-view.js';
import { leaveExperimentCompare, showExperimentCompare } from './experiment-compare.js';
import { leaveExperiment, showExperiment } from './experiment-page.js';
import { createExperimentsView } from './experiments-view.js';
import { leaveRun, showRun } from './run-page.js';
import { createRunsView } from './runs-view.js';

// Where Cosmos serves its routes; empty when it does not (no Agents view then, and no request).
const COSMOS = document.querySelector('meta[name="hubos-cosmos"]')?.getAttribute('content') || '';

const runs = createRunsView($('runs-view'));
const experiments = createExperimentsView($('experiments-view'));
const nav = $('views');
nav.hidden = false;
const agentsButton = document.querySelector('[data-show-view="agents"]');
agentsButton.hidden = !COSMOS;

/** Shows a studio view; the Runs (Experiments) button stays pressed on a run's (an experiment's) and a comparison's page. */
function show(view, pressed = view) {
  showView(view);
  for (const button of document.querySelectorAll('[data-show-view]'))
    button.setAttribute('aria-pressed', String(button.dataset.showView === pressed));
}

function route() {
  const [path, search = ''] = location.hash.replace(/^#/, '').split('?');
  let parts;
  try {
    parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    parts = ['runs']; // a broken escape (`%zz`): the list, rather than nothing
  }
  if (!['runs', 'compare', 'experiments', 'agents'].includes(parts[0])) return;
  // An address of no studio page (`#/runs/a/b`, `#/compare/a`): the list, rather than a stale view.
  if ((parts[0] === 'runs' && parts.length > 2) || (parts[0] === 'compare' && parts.length !== 3))
    parts = ['runs'];
  // One experiment is `experiments/<id>`, two `experiments/<a>/vs/<b>`; anything else there, the list.
  const pair = parts[0] === 'experiments' && parts.length === 4 && parts[2] === 'vs';
  if (parts[0] === 'experiments' && parts.length > 2 && !pair) parts = ['experiments'];
  if (!(parts[0] === 'experiments' && parts.length === 2)) leaveExperiment();
  if (!(parts[0] === 'experiments' && parts.length === 1)) experiments.close();
  if (!pair) leaveExperimentCompare();
  if (!(parts[0] === 'runs' && parts.length === 1)) runs.close();
  if (!(parts[0] === 'runs' && parts.length === 2)) leaveRun();
  if (parts[0] !== 'compare') leaveCompare();
  if (parts[0] === 'runs' && parts.length === 2) {
    show('run', 'runs');
    void showRun($('run-view'), parts[1]);
  } else if (parts[0] === 'runs') {
    show('runs');
    runs.open(new URLSearchParams(search));
  } else if (parts[0] === 'compare' && parts.length === 3) {
    show('compare', 'runs');
    void showCompare($('compare-view'), parts[1], parts[2]);
  } else if (pair) {
    show('experiment-compare', 'experiments');
    void showExperimentCompare($('experiment-compare-view'), parts[1], parts[3]);
  } else if (parts[0] === 'experiments' && parts.length === 2) {
    show('experiment', 'experiments');
    void showExperiment($('experiment-view'), parts[1]);
  } else if (parts[0] === 'experiments') {
    show('experiments');
    experiments.open(new URLSearchParams(search));
  } else if (parts[0] === 'agents' && COSMOS) {
    show('agents');
    void showAgents($('agents-view'));
  }
}

// The nav's buttons: app.js shows the view; the hash says which (so Back and a reload keep it).
for (const button of document.querySelectorAll('[data-show-view]'))
  button.addEventListener('click', () => {
    const view = button.dataset.showView;
    if (view === 'runs' || view === 'experiments' || view === 'agents') {
      if (location.hash === `#/${view}`) route();
      else location.hash = `#/${view}`;
    } else {
      runs.close();
      leaveRun();
      leaveCompare();
      experiments.close();
      leaveExperiment();
      leaveExperimentCompare();
      if (location.hash) history.replaceState(null, '', location.pathname + location.search);
    }
  });
el.agent.addEventListener('change', () => {
  runs.close();
  leaveRun();
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
});

window.addEventListener('hashchange', route);
route();
