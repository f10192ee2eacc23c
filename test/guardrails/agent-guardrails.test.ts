import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent, GuardrailEvent, Kernel, Plugin } from '../../core/index.ts';
import { bootKernel, ScriptedModel } from '../../testing/index.ts';
import { bootAgent, makeTool } from '../agent/helpers.ts';
import { blockTerm, CARD_NUMBER, redactCards, spy } from './test-guardrails.ts';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((kernel) => kernel.close()));
});

async function boot(setup: Parameters<typeof bootAgent>[0]) {
  const booted = await bootAgent(setup);
  kernels.push(booted.kernel);
  return booted;
}

/** The verdicts a run told, in order: on its steps' `step-finish`, its calls' `tool-result`, a trip's `guardrail`. */
const verdictsOf = (events: AgentEvent[]) =>
  events.flatMap((event) => {
    if (event.type !== 'guardrail' && event.type !== 'step-finish' && event.type !== 'tool-result') return [];
    const verdicts = event.type === 'guardrail' ? event.verdicts : (event.guardrails ?? []);
    return verdicts.map(({ guardrail, stage, action, callId, checks }) => ({
      guardrail,
      stage,
      action,
      step: event.step,
      ...(callId ? { callId } : {}),
      ...(checks ? { checks } : {}),
    }));
  });

const tripEvents = (events: AgentEvent[]) =>
  events.filter((event): event is GuardrailEvent => event.type === 'guardrail');

const text = (...deltas: string[]) => ({
  chunks: [
    ...deltas.map((delta) => ({ type: 'text-delta' as const, delta })),
    { type: 'finish' as const, finishReason: 'stop' as const },
  ],
});

describe('input guardrails in the loop', () => {
  it('redact a card number before the model, the session and the result see the message', async () => {
    const { agent, model, kernel } = await boot({
      script: ['Noted.'],
      template: { guardrails: { input: [redactCards()] } },
    });
    const events: AgentEvent[] = [];
    const result = await agent.run(`my card is ${CARD_NUMBER}`, {
      sessionId: 's1',
      onEvent: (event) => events.push(event),
    });
    const sent = JSON.stringify(model.requests);
    expect(sent).not.toContain('4111');
    expect(model.requests[0]!.messages).toEqual([{ role: 'user', content: 'my card is [redacted:card]' }]);
    expect(JSON.stringify(result)).not.toContain('4111');
    expect(result.messages[0]).toEqual({ role: 'user', content: 'my card is [redacted:card]' });
    const session = await kernel.sessions.load('assistant', 's1');
    expect(JSON.stringify(session)).not.toContain('4111');
    expect(verdictsOf(events)).toEqual([{ guardrail: 'cards', stage: 'input', action: 'rewrite', step: 1 }]);
    // A rewrite rides on the first step's end: no event of its own.
    expect(tripEvents(events)).toEqual([]);
  });

  it('a trip fails the run with GUARDRAIL_TRIPPED before any model call', async () => {
    const { agent, model } = await boot({
      script: ['never'],
      template: { guardrails: { input: [blockTerm('rm -rf')] } },
    });
    const events: AgentEvent[] = [];
    const error = await agent
      .run('please rm -rf /', { onEvent: (event) => events.push(event) })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'GUARDRAIL_TRIPPED',
      message: 'guardrail "block-rm -rf" tripped on the input: it says "rm -rf"',
    });
    expect(model.requests).toHaveLength(0);
    expect(events.map((event) => event.type)).toEqual(['run-start', 'guardrail', 'run-error']);
    expect(tripEvents(events)).toEqual([
      {
        type: 'guardrail',
        runId: events[0]!.runId,
        step: 1,
        stage: 'input',
        verdicts: [{ guardrail: 'block-rm -rf', stage: 'input', action: 'trip', reason: 'it says "rm -rf"' }],
      },
    ]);
  });
});

describe('output guardrails in the loop', () => {
  it('a streamed answer never shows a blocked term split across deltas; the run fails', async () => {
    const { agent } = await boot({
      script: [text('All good here. The secret code', ' is pass', 'word123. Bye.')],
      template: { guardrails: { output: [blockTerm('password')] } },
    });
    const events: AgentEvent[] = [];
    const error = await agent.run('hi', { onEvent: (event) => events.push(event) }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'GUARDRAIL_TRIPPED',
      message: 'guardrail "block-password" tripped on the output: it says "password"',
      details: { result: { status: 'failed', error: { code: 'GUARDRAIL_TRIPPED' } } },
    });
    const deltas = events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : []));
    expect(deltas).toEqual(['All good here. ']);
    expect(deltas.join('')).not.toMatch(/pass|word123/);
    expect(verdictsOf(events)).toEqual([
      { guardrail: 'block-password', stage: 'output', action: 'trip', step: 1, checks: 2 },
    ]);
    expect(events.slice(-2).map((event) => event.type)).toEqual(['guardrail', 'run-error']);
  });

  it('the rewritten answer is what the events, afterModelCall, the session and the result see', async () => {
    const seenByHook: string[] = [];
    const plugin: Plugin = {
      name: 'after',
      apply(kernel) {
        kernel.hooks.agentCreated.tap('after', ({ agent }) => {
          agent.hooks.afterModelCall.tap('after', ({ response }) => {
            seenByHook.push(response.message.content);
          });
        });
      },
    };
    const { agent, kernel } = await boot({
      script: [text('Your card ', '4111 1111 ', '1111 1111 is on file.')],
      template: { guardrails: { output: [redactCards()] } },
      plugins: [plugin],
    });
    const events: AgentEvent[] = [];
    const result = await agent.run('which card?', {
      sessionId: 's2',
      onEvent: (event) => events.push(event),
    });
    const deltas = events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : []));
    expect(deltas.join('')).toBe('Your card [redacted:card] is on file.');
    expect(result.text).toBe('Your card [redacted:card] is on file.');
    expect(seenByHook).toEqual(['Your card [redacted:card] is on file.']);
    expect(JSON.stringify(await kernel.sessions.load('assistant', 's2'))).not.toContain('4111');
  });

  it('a whole guardrail holds every delta until the answer ended', async () => {
    const whole = spy('whole', 'whole');
    const { agent } = await boot({
      script: [text('One. ', 'Two. ', 'Three.')],
      template: { guardrails: { output: [whole.guardrail] } },
    });
    const events: AgentEvent[] = [];
    await agent.run('count', { onEvent: (event) => events.push(event) });
    expect(events.filter((event) => event.type === 'text-delta')).toMatchObject([
      { delta: 'One. Two. Three.' },
    ]);
    expect(whole.seen).toHaveLength(1);
  });
});

describe('tool guardrails in the loop', () => {
  it('tool-input rewrites the arguments the handler gets; tool-output checks what the model reads', async () => {
    const got: unknown[] = [];
    const pay = makeTool('pay', (_ctx, tc) => {
      got.push(tc.input);
      return { paid: true, receipt: `card ${CARD_NUMBER}` };
    });
    const { agent, model } = await boot({
      tools: [pay],
      script: [{ toolCalls: [{ name: 'pay', id: 'c1', input: { card: CARD_NUMBER } }] }, 'Paid.'],
      template: { guardrails: { tool: [redactCards()] } },
    });
    const events: AgentEvent[] = [];
    const result = await agent.run('pay', { onEvent: (event) => events.push(event) });
    expect(got).toEqual([{ card: '[redacted:card]' }]);
    // The run's record of the call keeps the arguments it ran with.
    expect(result.toolCalls[0]!.input).toEqual({ card: '[redacted:card]' });
    const recorded = events.find((event) => event.type === 'tool-result');
    expect(JSON.stringify(recorded)).not.toContain('4111');
    expect(result.toolCalls[0]!.output).toEqual({ paid: true, receipt: 'card [redacted:card]' });
    expect(JSON.stringify(model.requests[1]!.messages.at(-1))).not.toContain('4111');
    expect(verdictsOf(events)).toEqual([
      { guardrail: 'cards', stage: 'tool-input', action: 'rewrite', step: 1, callId: 'c1' },
      { guardrail: 'cards', stage: 'tool-output', action: 'rewrite', step: 1, callId: 'c1' },
    ]);
    expect(recorded).toMatchObject({
      call: { id: 'c1' },
      guardrails: [{ stage: 'tool-input' }, { stage: 'tool-output' }],
    });
    expect(tripEvents(events)).toEqual([]);
  });

  it('a trip on a tool’s output fails the run: its output never reaches the model', async () => {
    const leak = makeTool('leak', () => 'the password is x');
    const { agent, model } = await boot({
      tools: [leak],
      script: [{ toolCalls: [{ name: 'leak', id: 'c1' }] }, 'never'],
      template: { guardrails: { tool: [blockTerm('password', { stages: ['tool-output'] })] } },
    });
    const events: AgentEvent[] = [];
    const error = await agent.run('go', { onEvent: (event) => events.push(event) }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'GUARDRAIL_TRIPPED',
      message: 'guardrail "block-password" tripped on the tool-output: it says "password"',
    });
    expect(model.requests).toHaveLength(1);
    // No tool-result for the call: its trip is the run's last word before run-error.
    expect(events.some((event) => event.type === 'tool-result')).toBe(false);
    expect(events.slice(-2)).toMatchObject([
      {
        type: 'guardrail',
        step: 1,
        stage: 'tool-output',
        callId: 'c1',
        verdicts: [{ guardrail: 'block-password', stage: 'tool-output', action: 'trip', callId: 'c1' }],
      },
      { type: 'run-error', error: { code: 'GUARDRAIL_TRIPPED' } },
    ]);
  });
});

describe('the config’s guardrails and kernel.guardrails', () => {
  it('top-level input and output run before the agent’s own; tool ones check kernel.tools.call() too', async () => {
    const order: string[] = [];
    const named = (name: string) => ({
      name,
      streaming: 'sentence' as const,
      check: (_value: unknown, ctx: { stage: string }) => {
        order.push(`${name}@${ctx.stage}`);
        return undefined;
      },
    });
    const echo = makeTool('echo', (_ctx, tc) => tc.input);
    const { agent, kernel } = await boot({
      tools: [echo],
      script: ['Hello.'],
      config: {
        guardrails: { input: [named('global')], output: [named('global')], tool: [blockTerm('forbidden')] },
      },
      template: { guardrails: { input: [named('own')], output: [named('own')] } },
    });
    await agent.run('hi');
    expect(order).toEqual(['global@input', 'own@input', 'global@output', 'own@output']);
    const events: AgentEvent[] = [];
    const outside = await kernel.tools.call({
      call: { id: 'x1', name: 'echo', input: { say: 'forbidden words' } },
      run: {
        runId: 'mcp-1',
        agent: 'mcp',
        sessionId: undefined,
        input: '',
        signal: new AbortController().signal,
        via: 'mcp',
      },
      emit: (event) => events.push(event),
    });
    expect(outside).toEqual({
      ok: false,
      error: {
        code: 'GUARDRAIL_TRIPPED',
        message: 'guardrail "block-forbidden" tripped on the tool-input: it says "forbidden"',
      },
    });
    expect(verdictsOf(events)).toEqual([
      { guardrail: 'block-forbidden', stage: 'tool-input', action: 'trip', step: 0, callId: 'x1' },
    ]);
  });

  it('a plugin registers a named guardrail that configs use by name, with options', async () => {
    const plugin: Plugin = {
      name: 'house',
      apply(kernel) {
        kernel.guardrails.register('no-word', (options) => blockTerm(String(options.word)));
      },
    };
    const { agent } = await boot({
      plugins: [plugin],
      script: ['never'],
      template: { guardrails: { input: [{ use: 'no-word', word: 'banana' }] } },
    });
    await expect(agent.run('a banana')).rejects.toMatchObject({ code: 'GUARDRAIL_TRIPPED' });
  });

  it('an unknown name fails the boot with GUARDRAIL_INVALID naming its config path and the known names', async () => {
    const error = await bootKernel({
      config: { agents: { support: { model: new ScriptedModel(), guardrails: { output: ['nope'] } } } },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'GUARDRAIL_INVALID' });
    expect((error as Error).message).toMatch(
      /agents\.support\.guardrails\.output\[0\]: no guardrail named "nope" \(known: /,
    );
    const top = await bootKernel({ config: { guardrails: { tool: [{ use: 'nope' }] } } }).catch(
      (e: unknown) => e,
    );
    expect((top as Error).message).toMatch(/^guardrails\.tool\[0\]: no guardrail named "nope"/);
  });

  it('a config whose guardrails are not lists fails the boot with CONFIG_INVALID', async () => {
    const error = await bootKernel({
      config: { agents: { a: { model: new ScriptedModel(), guardrails: { input: 'pii' } as never } } },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONFIG_INVALID' });
    expect((error as Error).message).toContain('agents.a.guardrails.input');
  });
});

describe('input guardrails of a resumed run', () => {
  it('a run resumed before its first answer was kept checks the message again: the model never sees it raw', async () => {
    const { agent, model, kernel } = await boot({
      script: ['Noted.'],
      template: { guardrails: { input: [redactCards()] } },
    });
    const raw = `card ${CARD_NUMBER}`;
    // What the first attempt's session kept: the message as its input guardrails let it through.
    await kernel.sessions.append('assistant', 's9', [{ role: 'user', content: 'card [redacted:card]' }]);
    const result = await agent.run(raw, {
      sessionId: 's9',
      resume: { messages: [{ role: 'user', content: raw }] },
    });
    expect(JSON.stringify(model.requests)).not.toContain('4111');
    expect(model.requests[0]!.messages).toEqual([{ role: 'user', content: 'card [redacted:card]' }]);
    // Not kept twice: the session matched what the first attempt kept.
    expect(await kernel.sessions.load('assistant', 's9')).toEqual([
      { role: 'user', content: 'card [redacted:card]' },
      { role: 'assistant', content: 'Noted.' },
    ]);
    expect(result.text).toBe('Noted.');
  });
});
