/**
 * A run answered as one JSON body asks the model for whole answers (nobody reads the text as it
 * comes); a run answered over SSE keeps the model's stream.
 */
import { afterEach, expect, it } from 'vitest';
import { type Served, serveHelper } from './helpers.ts';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const post = (url: string, accept: string) =>
  fetch(`${url}/api/agents/helper/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify({ input: 'echo hi' }),
  });

it('asks the model for whole answers when the run is answered as JSON', async () => {
  served = await serveHelper([{ toolCalls: [{ name: 'echo', input: { text: 'hi' } }] }, 'done']);
  const response = await post(served.url, 'application/json');
  expect(response.status).toBe(200);
  expect(((await response.json()) as { text: string }).text).toBe('done');
  expect(served.model.requests.map((request) => request.stream)).toEqual([false, false]);
});

it('keeps the model streaming when the run is answered over SSE', async () => {
  served = await serveHelper([{ toolCalls: [{ name: 'echo', input: { text: 'hi' } }] }, 'done']);
  const response = await post(served.url, 'text/event-stream');
  expect(response.status).toBe(200);
  expect(await response.text()).toContain('event: run-finish');
  expect(served.model.requests.map((request) => request.stream)).toEqual([undefined, undefined]);
});
