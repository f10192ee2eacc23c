import { describe, expect, it } from 'vitest';
import { guardrails, HubosError } from '../../core/index.ts';
import { context } from './context.ts';

const input = context('input');
const redact = (text: unknown, options = {}) => guardrails.pii(options).check(text, input);

describe('pii: what it finds', () => {
  it('redacts e-mail addresses, keeping the sentence around them exact', async () => {
    expect(await redact('Write to jane.doe+billing@example.co.uk, or to ops@mail.example.com.')).toEqual({
      action: 'rewrite',
      value: 'Write to [redacted:email], or to [redacted:email].',
      reason: 'redacted 2 e-mail addresses',
    });
  });

  it('does not take a handle, a decorator or a version range for an e-mail address', async () => {
    expect(await redact('Ping @jane on the thread; @Injectable() is a decorator; npm i left-pad@1.3.0')).toBe(
      undefined,
    );
    expect(await redact('user@localhost is not routable')).toBe(undefined);
  });

  it('finds card numbers that pass the Luhn check, and not those that fail it', async () => {
    const text =
      'Visa 4111 1111 1111 1111, Mastercard 5555-5555-5555-4444, Amex 3782 822463 10005, raw 6011111111111117; typo 4111 1111 1111 1112.';
    expect(await redact(text)).toEqual({
      action: 'rewrite',
      value:
        'Visa [redacted:card], Mastercard [redacted:card], Amex [redacted:card], raw [redacted:card]; typo 4111 1111 1111 1112.',
      reason: 'redacted 4 card numbers',
    });
  });

  it('finds what is written to slip past it: dots, unicode spaces and dashes, full-width forms, zero-width gaps', async () => {
    const written = [
      '4111.1111.1111.1111',
      '4111\u20091111\u20091111\u20091111', // thin space
      '4111\u202f1111\u202f1111\u202f1111', // narrow no-break space
      '4111\u20131111\u20131111\u20131111', // en dash
      '\uff14\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11', // full-width
      '4111\u200b1111\u200b1111\u200b1111', // zero-width spaces
    ];
    for (const card of written)
      expect(await redact(`card ${card}, thanks`), JSON.stringify(card)).toMatchObject({
        value: 'card [redacted:card], thanks',
      });
    expect(await redact('iban de89 3704 0044 0532 0130 00, thanks')).toMatchObject({
      value: 'iban [redacted:iban], thanks',
    });
    expect(await redact('mail jane\uff20example.com or j\u00f6rg.m\u00fcller@exampl\u00e9.de')).toMatchObject(
      {
        value: 'mail [redacted:email] or [redacted:email]',
      },
    );
  });

  it('takes a card out of the digits after it (an expiry) without taking them', async () => {
    expect(await redact('card 4242 4242 4242 4242 12/27 cvc 123')).toMatchObject({
      value: 'card [redacted:card] 12/27 cvc 123',
    });
  });

  it('finds IBANs by their mod-97 check; a wrong check digit is not one (nor a card or a phone number)', async () => {
    const text =
      'Pay DE89 3704 0044 0532 0130 00 or GB82WEST12345698765432 or FR14 2004 1010 0505 0001 3M02 606. Not DE88 3704 0044 0532 0130 00.';
    expect(await redact(text)).toEqual({
      action: 'rewrite',
      value: 'Pay [redacted:iban] or [redacted:iban] or [redacted:iban]. Not DE88 3704 0044 0532 0130 00.',
      reason: 'redacted 3 IBANs',
    });
  });

  it('finds phone numbers in international and national forms', async () => {
    const numbers = [
      '+44 20 7946 0958',
      '+44 (0)20 7946 0958',
      '+1 (415) 555-0132',
      '+14155550132',
      '+33 6 12 34 56 78',
      '0044 20 7946 0958',
      '(415) 555-0132',
      '415-555-0132',
      '415.555.0132',
      '1 415 555 0132',
      '020 7946 0958',
      '06 12 34 56 78',
      '01.23.45.67.89',
      '030 1234567',
      '0612345678',
    ];
    for (const number of numbers)
      expect(await redact(`Call me on ${number}.`), number).toMatchObject({
        value: 'Call me on [redacted:phone].',
      });
  });

  it('does not take dates, times, versions, addresses, amounts or plain numbers for phone numbers', async () => {
    const text = [
      'The release on 2024-01-15 at 10:30:00 (15.01.2024, 01/15/2024) shipped version 1.2.3.4 and build 10.0.19041.1234.',
      'It listens on 192.168.10.20, costs 1 000 000 000 in cents, order 1700000000 (a timestamp), 4155550132 as an id,',
      'years 2019-2023, pages 1200-1250, ISO 8601 2024-01-15T10:30:00Z and v2.10.3.',
    ].join(' ');
    expect(await redact(text)).toBe(undefined);
  });

  it('finds API keys by their shapes, and signed JWTs', async () => {
    const keys = [
      'sk-proj-abc123DEF456ghi789JKL012mno',
      'sk-ant-api03-Xyz0123456789abcdefGHIJKLMNOPqrstu',
      'AKIAIOSFODNN7EXAMPLE',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'github_pat_11ABCDEFG0123456789_abcdefghijklmnop',
      'xoxb-1234567890-abcdefghijkl',
      'AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    ];
    for (const key of keys)
      expect(await redact(`Authorization: Bearer ${key}.`), key).toMatchObject({
        value: 'Authorization: Bearer [redacted:api-key].',
      });
  });

  it('does not take words that merely start like a key for one', async () => {
    expect(
      await redact(
        'The task-force-for-the-new-quarter met; ask-me-anything-about-sklearn-models; sk-learn is fine.',
      ),
    ).toBe(undefined);
  });

  it('redacts each kind in one pass, counting what it found, never saying the values', async () => {
    const verdict = await redact('Jane (jane@example.com, +1 415 555 0132) paid with 4111111111111111.');
    expect(verdict).toEqual({
      action: 'rewrite',
      value: 'Jane ([redacted:email], [redacted:phone]) paid with [redacted:card].',
      reason: 'redacted 1 e-mail address, 1 phone number and 1 card number',
    });
  });
});

describe('pii: options', () => {
  it('looks only for the kinds listed', async () => {
    expect(await redact('jane@example.com, 4111111111111111', { kinds: ['card'] })).toMatchObject({
      value: 'jane@example.com, [redacted:card]',
    });
  });

  it('trips instead of redacting with action trip, naming the kinds and not the values', async () => {
    expect(await redact('my card is 4111 1111 1111 1111', { action: 'trip' })).toEqual({
      action: 'trip',
      reason: 'found 1 card number',
    });
  });

  it('passes clean text', async () => {
    expect(await redact('The meeting is on Tuesday at 3pm in room 12.')).toBe(undefined);
  });

  it.each([
    [
      { kinds: ['emails'] },
      "pii: option \"kinds[0]\" must be one of 'email', 'phone', 'card', 'iban', 'api-key', got \"emails\"",
    ],
    [{ kinds: 'email' }, 'pii: option "kinds" must be an array of strings, got string "email"'],
    [{ kinds: [] }, 'pii: option "kinds" is empty'],
    [{ action: 'block' }, 'pii: option "action" must be \'redact\' or \'trip\', got string "block"'],
    [{ kind: ['email'] }, 'pii: unknown option "kind" (did you mean "kinds"?)'],
    ['email', 'pii: its options must be an object, got string "email"'],
  ])('refuses bad options %j with GUARDRAIL_INVALID saying what to fix', (options, message) => {
    let error: unknown;
    try {
      guardrails.pii(options as never);
    } catch (caught) {
      error = caught;
    }
    expect(HubosError.is(error, 'GUARDRAIL_INVALID')).toBe(true);
    expect((error as Error).message).toContain(message);
  });
});
