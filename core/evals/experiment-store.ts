import { HubosError } from '../errors.ts';
import type { RecordCursor } from '../records/record-table.ts';
import { recordTable } from '../records/typed-record-table.ts';
import type { Store } from '../store/store.ts';
import type { CaseResult, Experiment } from './experiment.ts';

/** The cases of an experiment are read in pages of at most this many. */
const CASE_PAGE = 500;
/** An experiment holds at most this many cases (a dataset larger than that is split). */
export const MAX_CASES = 100_000;

export interface ExperimentQuery {
  /** Only this principal's (an admin passes none: every one). */
  owner?: string | undefined;
  agent?: string | undefined;
  limit?: number | undefined;
  /** The `next` of the page before. */
  after?: RecordCursor | undefined;
}

export interface ExperimentPage {
  experiments: Experiment[];
  next?: RecordCursor;
}

/**
 * Where experiments and their cases are kept: two record tables of the store (`experiments`, filed
 * by owner, time and agent; `experiment-cases`, filed by experiment and place), so any instance
 * sharing the store reads them and a list reads one page of an index.
 */
export class ExperimentStore {
  readonly #experiments;
  readonly #cases;

  constructor(store: Store) {
    this.#experiments = recordTable<Experiment>(store, 'experiments', {
      owner: (experiment) => experiment.owner,
      time: (experiment) => Date.parse(experiment.createdAt),
      tag: (experiment) => experiment.agent,
    });
    this.#cases = recordTable<CaseResult & { experiment: string; place: number }>(store, 'experiment-cases', {
      time: (entry) => entry.place,
      tag: (entry) => entry.experiment,
    });
  }

  /** Stores (or replaces) an experiment's record. */
  async put(experiment: Experiment): Promise<void> {
    await this.#experiments.put(experiment.id, experiment);
  }

  /** Stores an experiment's cases; `first` is the place of the first (from 0). */
  async putCases(experimentId: string, cases: readonly CaseResult[], first = 0): Promise<void> {
    if (first + cases.length > MAX_CASES)
      throw new HubosError('DATASET_INVALID', `an experiment holds at most ${MAX_CASES} cases`);
    const rows = cases.map((result, i) => ({
      key: `${experimentId}/${String(first + i).padStart(6, '0')}`,
      value: { ...result, experiment: experimentId, place: first + i },
    }));
    await this.#cases.insertMany(rows);
  }

  /** The experiment, if `owner` may read it (undefined for an admin: any). */
  async get(id: string, owner?: string): Promise<Experiment | undefined> {
    const experiment = await this.#experiments.get(id);
    if (!experiment || (owner !== undefined && experiment.owner !== owner)) return undefined;
    return experiment;
  }

  /** Its cases in their dataset's order. */
  async cases(id: string): Promise<CaseResult[]> {
    const out: CaseResult[] = [];
    let after: RecordCursor | undefined;
    do {
      const page = await this.#cases.list({ tag: id, order: 'oldest', limit: CASE_PAGE, after });
      for (const { value } of page.entries) {
        const { experiment: _experiment, place: _place, ...result } = value;
        out.push(result);
      }
      after = page.next;
    } while (after);
    return out;
  }

  /** Newest first, one page. */
  async list(query: ExperimentQuery = {}): Promise<ExperimentPage> {
    const page = await this.#experiments.list({
      ...(query.owner !== undefined ? { owner: query.owner } : {}),
      ...(query.agent !== undefined ? { tag: query.agent } : {}),
      order: 'newest',
      limit: query.limit ?? 50,
      ...(query.after ? { after: query.after } : {}),
    });
    return {
      experiments: page.entries.map((entry) => entry.value),
      ...(page.next ? { next: page.next } : {}),
    };
  }

  /** Deletes an experiment and its cases; false when there was none (or `owner` may not). */
  async delete(id: string, owner?: string): Promise<boolean> {
    if (!(await this.get(id, owner))) return false;
    for (;;) {
      const gone = await this.#cases.deleteWhere({ tag: id, limit: CASE_PAGE });
      if (gone.length < CASE_PAGE) break;
    }
    return this.#experiments.delete(id);
  }
}
