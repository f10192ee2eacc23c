import { INVISIBLE } from './folded-text.ts';

/** A sign of a prompt injection: what it is (for the reason) and how it is written. */
export interface InjectionMarker {
  what: string;
  pattern: RegExp;
}

/**
 * Phrases and tokens that try to take over a model from inside data (a web page, a file, a tool's
 * output, a pasted message). Every pattern is bounded (no nested unbounded repeats): a check is
 * linear in the text, whatever an attacker sends.
 */
export const INJECTION_MARKERS: readonly InjectionMarker[] = [
  {
    what: 'an instruction to ignore previous instructions',
    pattern:
      /\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:(?:all|any|every|each|the|your|my|of|these|those|its)\s+){0,3}(?:previous|prior|above|earlier|preceding|former|original|initial|system|existing)\s+(?:instructions?|prompts?|rules|directions|directives|guidelines|messages|context|commands|orders)\b/i,
  },
  {
    what: 'an instruction to ignore what came before',
    pattern:
      /\b(?:ignore|disregard|forget)\s+(?:everything|anything|all)\s+(?:above|before|previously|you\s+were\s+told)\b/i,
  },
  {
    what: 'an attempt to give the model a new role',
    pattern:
      /\byou\s+are\s+(?:now|no\s+longer)\s+(?:(?:a|an|in|the)\s+)?(?:DAN|developer\s+mode|jailbroken|unrestricted|unfiltered|uncensored|bound\s+by|restricted\s+by|limited\s+by)\b/i,
  },
  {
    what: 'an attempt to give the model a new role',
    pattern:
      /\byou\s+are\s+now\s+(?:a|an)\s+(?:[\w-]+\s+){0,3}(?:assistant|AI|model|chatbot|bot|persona|character)\b/i,
  },
  {
    what: 'an attempt to give the model a new role',
    pattern:
      /\b(?:pretend|act)\s+(?:to\s+be|as\s+if\s+you\s+(?:are|were)|as)\s+(?:an?\s+)?(?:DAN|unrestricted|unfiltered|uncensored|jailbroken|evil)\b/i,
  },
  {
    what: 'a new system prompt',
    pattern:
      /\b(?:new|updated|revised|real|actual|true)\s+(?:system\s+prompt|system\s+message|system\s+instructions)\b|\bnew\s+(?:instructions|rules)\s*:|\bsystem\s+(?:override|prompt\s*:)/i,
  },
  {
    what: 'a chat role token',
    pattern:
      /<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text)\|>|\[\/?INST\]|<<\/?SYS>>|<\/?(?:system|system_prompt)>/i,
  },
  {
    what: 'a system header',
    pattern: /^[ \t]*#{2,6}[ \t]*(?:system|system\s+prompt|instructions|new\s+instructions)[ \t]*:?[ \t]*$/im,
  },
  {
    what: 'a hidden instruction',
    pattern:
      /\b(?:do\s+not|don't|never)\s+(?:tell|inform|alert|notify|mention\s+(?:this|it)\s+to|reveal\s+(?:this|it)\s+to|show\s+(?:this|it)\s+to)\s+the\s+user\b|\bwithout\s+(?:telling|informing|alerting|notifying|asking)\s+the\s+user\b/i,
  },
  {
    what: 'a message addressed to the model',
    pattern:
      /\b(?:note|message)\s+to\s+(?:the\s+|any\s+)?(?:AI|assistant|LLM|language\s+model|chatbot)\b|\bif\s+you\s+are\s+an?\s+(?:AI|assistant|LLM|language\s+model)\b|\b(?:AIs?|LLMs?|assistants?)\s+(?:reading|processing|summari[sz]ing)\s+this\b/i,
  },
  {
    what: 'a request for the system prompt',
    pattern:
      /\b(?:reveal|print|repeat|show|output|leak)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+prompt|hidden\s+instructions|initial\s+instructions|original\s+instructions)\b/i,
  },
];

/** Unicode tag characters: invisible, and read by models as text ("ASCII smuggling"). */
export const HIDDEN_TEXT = /[\u{E0000}-\u{E007F}]/u;

/** The text as a pattern should see it: compatibility forms folded (ｉｇｎｏｒｅ → ignore), invisible characters out. */
export function normalizeForMarkers(text: string): string {
  return text.normalize('NFKC').replace(INVISIBLE, '');
}

/** HTML tags (bounded, so the scan stays linear) and markdown emphasis: what a page puts between words. */
const MARKUP = /<\/?[A-Za-z][^<>]{0,200}>|[*_~`]+/g;

/**
 * The folded text with its markup taken out (`ignore **all** <b>previous</b> instructions`), matched
 * as well as the folded text: markers that are markup themselves (`<system>`, `<|im_start|>`) are
 * looked for in the other.
 */
export function withoutMarkup(folded: string): string {
  return folded.replace(MARKUP, (markup) => (markup[0] === '<' ? ' ' : ''));
}
