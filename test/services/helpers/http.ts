import type { RunRecord } from '../../../core/runs/run-record.ts';
import { pollUntil } from './poll.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
export type Json = any;

/** A request never waits longer than this: a server that hangs fails the test instead of stalling it. */
export const REQUEST_TIMEOUT_MS = 30_000;

export interface Answer {
  status: number;
  body: Json;
  /** The body as text when it was not JSON. */
  text: string;
  contentType: string;
}

/** Sends a request and reads its whole answer (JSON parsed when it is JSON). */
export async function request(url: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<Answer> {
  const { timeoutMs = REQUEST_TIMEOUT_MS, ...rest } = init;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { ...rest, signal: rest.signal ?? AbortSignal.timeout(timeoutMs) });
    text = await response.text();
  } catch (error) {
    // Which request hung or broke, not only that one did.
    throw new Error(`${rest.method ?? 'GET'} ${url}: ${(error as Error).name}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const contentType = response.headers.get('content-type') ?? '';
  let body: Json;
  if (contentType.includes('application/json')) {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  return { status: response.status, body, text, contentType };
}

export function postJson(
  url: string,
  body: unknown,
  init: RequestInit & { timeoutMs?: number } = {},
): Promise<Answer> {
  return request(url, {
    ...init,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
    body: JSON.stringify(body),
  });
}

/** Starts a run and returns the response unread: an SSE stream (`Accept: text/event-stream`). */
export function postStream(url: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** GET `<base>/api/runs/:id`: the record, or fails on any other answer than 200. */
export async function getRun(base: string, id: string): Promise<RunRecord> {
  const answer = await request(`${base}/api/runs/${id}`);
  if (answer.status !== 200) throw new Error(`GET /api/runs/${id}: ${answer.status} ${answer.text}`);
  return answer.body as RunRecord;
}

export const FINAL = new Set(['completed', 'cancelled', 'failed', 'interrupted']);

/** Polls the record on `base` until `done` holds (default: a final state). */
export function waitForRun(
  base: string | (() => string),
  id: string,
  done: (record: RunRecord) => boolean = (record) => FINAL.has(record.status),
  what = 'a final state',
  timeoutMs = 30_000,
): Promise<RunRecord> {
  return pollUntil(
    `run ${id} to reach ${what}`,
    () => getRun(typeof base === 'string' ? base : base(), id),
    done,
    { timeoutMs },
  );
}

/** An answer with how long it took: what a request made while a service is away got, and when. */
export interface TimedAnswer extends Answer {
  what: string;
  ms: number;
}

export async function timed(what: string, send: () => Promise<Answer>): Promise<TimedAnswer> {
  const started = Date.now();
  const answer = await send();
  return { what, ms: Date.now() - started, ...answer };
}

/** Starts a run with `Accept: text/event-stream` and reads the whole answer, as `request` does. */
export function postStreamed(url: string, body: unknown, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Answer> {
  return request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
    timeoutMs,
  });
}

export const describeAnswers = (answers: TimedAnswer[]) =>
  answers.map((answer) => `${answer.what} ${answer.status} in ${answer.ms} ms`).join(', ');
