import type { CustomEvent, ToolCallResultEvent } from '@ag-ui/client';
import { afterEach, describe, expect, it } from 'vitest';
import { defineTool, type ElicitResult, toolOutput } from '../../../../core/index.ts';
import { ofType, runWith, type Served, serveAgent } from './helpers.ts';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const QUESTION = {
  message: 'Which city?',
  schema: {
    type: 'object',
    properties: { city: { type: 'string', enum: ['Paris', 'Oslo'] }, days: { type: 'integer', default: 3 } },
    required: ['city'],
  },
} as const;

const answers: ElicitResult[] = [];
const forecast = defineTool({
  name: 'forecast',
  description: 'A forecast chart for a city it asks for.',
  inputSchema: { type: 'object', properties: {} },
  handler: async (_ctx, tc) => {
    tc.log('notice', 'asking which city');
    const answer = await tc.elicit(QUESTION);
    answers.push(answer);
    return toolOutput({
      content: [
        { type: 'text', text: `Forecast for ${String(answer.content?.city)}` },
        { type: 'image', data: PNG, mimeType: 'image/png' },
      ],
      structuredContent: { city: answer.content?.city },
    });
  },
});

let served: Served | undefined;
afterEach(async () => {
  answers.length = 0;
  await served?.close();
  served = undefined;
});

describe("AG-UI: a tool's question", () => {
  it('reaches the client as hubos.approval-request with the question, answered over REST', async () => {
    served = await serveAgent(
      [{ toolCalls: [{ id: 'call_f', name: 'forecast' }] }, 'Here it is.'],
      [forecast],
    );
    const { url } = served;
    const decisions: Promise<Response>[] = [];
    const { events, error } = await runWith(
      served.client(),
      'Forecast please',
      {},
      {
        onCustomEvent: ({ event }) => {
          if (event.name !== 'hubos.approval-request') return;
          const { runId, callId } = event.value as { runId: string; callId: string };
          decisions.push(
            fetch(`${url}/api/runs/${runId}/approvals/${callId}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ approved: true, content: { city: 'Oslo' } }),
            }),
          );
        },
      },
    );
    expect(error).toBeUndefined();
    expect((await Promise.all(decisions)).map((response) => response.status)).toEqual([200]);
    expect(answers).toEqual([{ action: 'accept', content: { city: 'Oslo', days: 3 } }]);

    const custom = ofType<CustomEvent>(events, 'CUSTOM');
    const named = (name: string) => custom.find((event) => event.name === name)?.value;
    expect(named('hubos.approval-request')).toMatchObject({ callId: 'call_f.ask-1', question: QUESTION });
    expect(named('hubos.approval-result')).toMatchObject({
      status: 'approved',
      answer: { city: 'Oslo', days: 3 },
    });
    expect(named('hubos.tool-log')).toMatchObject({
      callId: 'call_f',
      level: 'notice',
      message: 'asking which city',
    });

    // The result is what the model read: the parts in words, not the structured data.
    const [result] = ofType<ToolCallResultEvent>(events, 'TOOL_CALL_RESULT');
    expect(result!.content).toBe('Forecast for Oslo\n[image image/png, 70 bytes]');
    expect(served.model.requests[1]!.messages.at(-1)).toMatchObject({ content: result!.content });
  });

  it('an answer that does not fit is refused (400) and the client can try again', async () => {
    served = await serveAgent([{ toolCalls: [{ id: 'call_f', name: 'forecast' }] }, 'Done.'], [forecast]);
    const { url } = served;
    const statuses: Promise<number[]>[] = [];
    const { error } = await runWith(
      served.client(),
      'Forecast please',
      {},
      {
        onCustomEvent: ({ event }) => {
          if (event.name !== 'hubos.approval-request') return;
          const { runId, callId } = event.value as { runId: string; callId: string };
          const answer = (content: unknown) =>
            fetch(`${url}/api/runs/${runId}/approvals/${callId}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ approved: true, content }),
            });
          statuses.push(
            (async () => {
              const wrong = await answer({ city: 'Atlantis' });
              const body = (await wrong.json()) as { error: { code: string; message: string } };
              expect(body.error.code).toBe('APPROVAL_ANSWER_INVALID');
              expect(body.error.message).toContain('city');
              const right = await answer({ city: 'Paris', days: 1 });
              return [wrong.status, right.status];
            })(),
          );
        },
      },
    );
    expect(error).toBeUndefined();
    expect(await Promise.all(statuses)).toEqual([[400, 200]]);
    expect(answers).toEqual([{ action: 'accept', content: { city: 'Paris', days: 1 } }]);
  });
});
