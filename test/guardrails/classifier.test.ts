import { describe, expect, it } from 'vitest';
import { GuardrailRegistry, guardrails, type LanguageModel } from '../../core/index.ts';
import { ScriptedModel } from '../../testing/index.ts';
import { context } from './context.ts';

const rubric = 'The text gives medical dosage advice.';
const answer = 'Take 800 mg of ibuprofen every two hours.';

describe('classifier', () => {
  it('asks the run model once, not streamed, with the rubric in the system prompt and the text as data', async () => {
    const model = new ScriptedModel(['{"flagged": false, "reason": "no dosage advice"}']);
    const verdict = await guardrails
      .classifier({ rubric })
      .check('The pharmacy opens at 9.', context('output', { model }));
    expect(verdict).toEqual({ action: 'pass', reason: 'no dosage advice' });
    model.assertConsumed();
    const [request] = model.requests;
    expect(request!.stream).toBe(false);
    expect(request!.tools).toEqual([]);
    expect(request!.system).toContain(rubric);
    expect(request!.system).toContain('{"flagged": true or false, "reason": "one short sentence"}');
    expect(request!.messages).toEqual([
      { role: 'user', content: "The text to check (an assistant's answer):\n\nThe pharmacy opens at 9." },
    ]);
  });

  it('trips with the reason the model gives when it flags the text', async () => {
    const model = new ScriptedModel([
      '```json\n{"flagged": true, "reason": "gives a dose and an interval"}\n```',
    ]);
    expect(await guardrails.classifier({ rubric }).check(answer, context('output', { model }))).toEqual({
      action: 'trip',
      reason: 'gives a dose and an interval',
    });
  });

  it('fails closed: an answer that is not the verdict JSON trips, saying so', async () => {
    for (const garbage of ['Yes, this looks fine to me.', '{"flagged": "no"}', '{"flagged": true,', '']) {
      const model = new ScriptedModel([{ text: garbage }]);
      const verdict = await guardrails.classifier({ rubric }).check(answer, context('output', { model }));
      expect(verdict, garbage).toMatchObject({
        action: 'trip',
        reason: expect.stringContaining(
          'the classifier\'s answer was not {"flagged": boolean, "reason": string}, so the text was not let through',
        ),
      });
    }
  });

  it('fails closed when the model fails, or there is no model', async () => {
    const failing = new ScriptedModel([{ error: 'upstream 503' }]);
    expect(
      await guardrails.classifier({ rubric }).check(answer, context('output', { model: failing })),
    ).toEqual({
      action: 'trip',
      reason: "the classifier's model failed, so the text was not let through: upstream 503",
    });
    expect(await guardrails.classifier({ rubric }).check(answer, context('output'))).toMatchObject({
      action: 'trip',
      reason: expect.stringContaining('the classifier has no model to ask'),
    });
  });

  it('asks the model its option names, resolved by the kernel, rather than the run model', async () => {
    const judge = new ScriptedModel(['{"flagged": true, "reason": "dosage"}'], { modelId: 'judge' });
    const runModel = new ScriptedModel([]);
    const asked: string[] = [];
    const resolveModel = (ref: string): LanguageModel => {
      asked.push(ref);
      return judge;
    };
    const guard = guardrails.classifier({ rubric, model: 'openai:gpt-4.1-mini' });
    expect(
      await guard.check({ note: answer }, context('tool-output', { model: runModel, resolveModel })),
    ).toEqual({
      action: 'trip',
      reason: 'dosage',
    });
    expect(asked).toEqual(['openai:gpt-4.1-mini']);
    expect(judge.requests[0]!.messages[0]!.content).toContain('"note": "Take 800 mg');
    expect(runModel.requests).toHaveLength(0);
  });

  it('stops with the run: an aborted check throws rather than answering', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([{ text: '{"flagged": false}', delayMs: 5_000 }]);
    const pending = guardrails
      .classifier({ rubric })
      .check(answer, context('output', { model, signal: controller.signal }));
    controller.abort(new Error('run cancelled'));
    await expect(pending).rejects.toThrow('run cancelled');
  });

  it.each([
    [{}, 'option "rubric" is required'],
    [{ rubric: '  ' }, 'option "rubric" is required'],
    [{ rubric, model: 42 }, 'option "model" must be a model reference like \'openai:gpt-4.1-mini\''],
    [{ rubric, action: 'redact' }, 'option "action" must be \'trip\''],
    [{ rubrik: rubric }, 'unknown option "rubrik" (did you mean "rubric"?)'],
  ])('refuses %j', (options, message) => {
    expect(() =>
      new GuardrailRegistry().resolve({ use: 'classifier', ...options }, 'guardrails.output[0]'),
    ).toThrow(
      expect.objectContaining({ code: 'GUARDRAIL_INVALID', message: expect.stringContaining(message) }),
    );
  });
});

describe('classifier reasons', () => {
  it('cuts a long reason: it goes into errors and traces', async () => {
    const model = new ScriptedModel([JSON.stringify({ flagged: true, reason: 'x'.repeat(5_000) })]);
    const verdict = (await guardrails.classifier({ rubric }).check(answer, context('output', { model }))) as {
      reason: string;
    };
    expect(verdict.reason).toBe(`${'x'.repeat(500)}…`);
  });
});
