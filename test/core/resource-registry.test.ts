import { describe, expect, it } from 'vitest';
import { HubosError, matchUriTemplate, PromptRegistry, ResourceRegistry } from '../../core/index.ts';

const read = () => [];

describe('matchUriTemplate', () => {
  it('gives one segment to {x} and the rest, slashes too, to {+x}', () => {
    expect(matchUriTemplate('test://items/{id}', 'test://items/42')).toEqual({ id: '42' });
    expect(matchUriTemplate('test://items/{id}', 'test://items/4/2')).toBeUndefined();
    expect(matchUriTemplate('file:///{+path}', 'file:///a/b/c.txt')).toEqual({ path: 'a/b/c.txt' });
    expect(matchUriTemplate('test://{a}/and/{b}', 'test://x/and/y')).toEqual({ a: 'x', b: 'y' });
  });

  it('decodes percent-escapes, keeps malformed ones as they are, and treats regex characters literally', () => {
    expect(matchUriTemplate('notes://{title}', 'notes://my%20plan')).toEqual({ title: 'my plan' });
    expect(matchUriTemplate('notes://{title}', 'notes://100%')).toEqual({ title: '100%' });
    expect(matchUriTemplate('a.b://{x}', 'aXb://1')).toBeUndefined();
  });
});

describe('ResourceRegistry', () => {
  it('finds a resource by uri before any template, and a template with its variables', () => {
    const resources = new ResourceRegistry();
    resources.register({ uri: 'test://items/special', name: 'special', read });
    resources.registerTemplate({ uriTemplate: 'test://items/{id}', name: 'item', read });
    expect(resources.find('test://items/special')?.kind).toBe('resource');
    expect(resources.find('test://items/7')).toMatchObject({ kind: 'template', variables: { id: '7' } });
    expect(resources.find('test://other/7')).toBeUndefined();
  });

  it('refuses malformed and duplicate entries with codes that say which', () => {
    const resources = new ResourceRegistry();
    const code = (fn: () => void) => {
      try {
        fn();
      } catch (error) {
        return HubosError.is(error) ? `${error.code}: ${error.message}` : String(error);
      }
      return 'no error';
    };
    expect(code(() => resources.register({ uri: 'no-scheme', name: 'x', read }))).toMatch(
      /^RESOURCE_INVALID: .*needs a scheme/,
    );
    expect(code(() => resources.register({ uri: 'test://a', name: '', read }))).toMatch(/needs a name/);
    expect(code(() => resources.registerTemplate({ uriTemplate: 'test://a', name: 'a', read }))).toMatch(
      /no \{variable\}/,
    );
    resources.register({ uri: 'test://a', name: 'a', read });
    expect(code(() => resources.register({ uri: 'test://a', name: 'a', read }))).toMatch(
      /^RESOURCE_DUPLICATE/,
    );
  });

  it('tells listeners of list changes and of updated contents, until they unsubscribe', () => {
    const resources = new ResourceRegistry();
    const heard: string[] = [];
    const offChange = resources.onChange(() => heard.push('changed'));
    const offUpdated = resources.onUpdated((uri) => heard.push(`updated ${uri}`));
    resources.register({ uri: 'test://a', name: 'a', read });
    resources.updated('test://a');
    expect(resources.unregister('test://a')).toBe(true);
    expect(resources.unregister('test://a')).toBe(false);
    offChange();
    offUpdated();
    resources.register({ uri: 'test://b', name: 'b', read });
    resources.updated('test://b');
    expect(heard).toEqual(['changed', 'updated test://a', 'changed']);
  });
});

describe('PromptRegistry', () => {
  it('registers, lists, finds and removes prompts, refusing duplicates and ones without get()', () => {
    const prompts = new PromptRegistry();
    let changes = 0;
    prompts.onChange(() => changes++);
    prompts.register({ name: 'greet', get: () => ({ messages: [] }) });
    expect(prompts.list().map((p) => p.name)).toEqual(['greet']);
    expect(prompts.get('greet')?.name).toBe('greet');
    expect(() => prompts.register({ name: 'greet', get: () => ({ messages: [] }) })).toThrow(
      /already registered/,
    );
    expect(() => prompts.register({ name: 'bad' } as never)).toThrow(/needs a get\(\) function/);
    expect(prompts.unregister('greet')).toBe(true);
    expect(prompts.get('greet')).toBeUndefined();
    expect(changes).toBe(2);
  });
});

describe('matchUriTemplate: a one-segment variable stays one segment', () => {
  it('refuses encoded slashes, backslashes and NUL in {x}, and keeps them in {+x}', () => {
    expect(matchUriTemplate('one://{name}', 'one://..%2F..%2Fetc%2Fpasswd')).toBeUndefined();
    expect(matchUriTemplate('one://{name}', 'one://a%5Cb')).toBeUndefined();
    expect(matchUriTemplate('one://{name}', 'one://a%00b')).toBeUndefined();
    expect(matchUriTemplate('file:///{+path}', 'file:///a%2Fb')).toEqual({ path: 'a/b' });
  });
});
