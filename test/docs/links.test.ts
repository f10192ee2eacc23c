// Every relative link of README.md and docs/ points at a file that exists, and every #anchor into a
// markdown file at one of its headings. Links may name the .md file (`./tools.md#registry`) or, as
// VitePress allows, leave the extension out (`./tools#registry`, `/guide/tools`, `/reference/`).
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, DOCS, markdownFiles, parseMarkdown, read, shown } from './markdown.ts';

interface Link {
  file: string;
  line: number;
  target: string;
}

/** Inline links and images `[text](target "title")`, autolinks aside, and reference definitions `[id]: target`. */
function linksOf(file: string): Link[] {
  const links: Link[] = [];
  parseMarkdown(file, read(file)).prose.forEach((raw, index) => {
    if (raw === null) return;
    const line = raw.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length)); // links inside code spans are text
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ file, line: index + 1, target: match[1] ?? '' });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(\s|$)/.exec(line);
    if (definition?.[1]) links.push({ file, line: index + 1, target: definition[1] });
  });
  return links;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
const inDocs = (file: string) => file.startsWith(`${DOCS}/`);

/** The file a link points at, or why there is none. */
function resolveTarget(link: Link, path: string): { file: string } | { error: string } {
  const base =
    path.startsWith('/') && inDocs(link.file) ? join(DOCS, path) : resolve(dirname(link.file), path);
  const candidates = [base];
  if (inDocs(link.file)) {
    // VitePress serves docs/public/ at the site's root: '/studio/runs.png' is docs/public/studio/runs.png.
    if (path.startsWith('/')) candidates.push(join(DOCS, 'public', path));
    // VitePress: '/guide/tools' is tools.md, '/guide/' is guide/index.md, 'x.html' is x.md.
    if (base.endsWith('/')) candidates.push(join(base, 'index.md'));
    else if (base.endsWith('.html')) candidates.push(base.replace(/\.html$/, '.md'));
    else candidates.push(`${base}.md`, join(base, 'index.md'));
  }
  for (const candidate of candidates) {
    if (!existsSync(candidate)) continue;
    if (statSync(candidate).isFile()) return { file: candidate };
    if (!inDocs(link.file)) return { file: candidate }; // a folder, as GitHub shows it
  }
  return { error: `no file ${shown(candidates[0] ?? base)}` };
}

function check(link: Link): string | undefined {
  const [path = '', anchor] = link.target.split('#', 2);
  let target = link.file;
  if (path !== '') {
    const found = resolveTarget(link, decodeURIComponent(path));
    if ('error' in found) return found.error;
    target = found.file;
  }
  if (anchor === undefined || anchor === '' || !target.endsWith('.md')) return undefined;
  const anchors = anchorsOf(read(target));
  if (anchors.has(decodeURIComponent(anchor))) return undefined;
  return `no heading #${anchor} in ${shown(target)}`;
}

describe('relative links of README.md and docs/', () => {
  const files = markdownFiles();
  const links = files.flatMap(linksOf).filter((link) => !isExternal(link.target));

  it('finds the links', () => {
    expect(files.length).toBeGreaterThan(1);
    expect(links.length).toBeGreaterThan(20);
  });

  it.each(files.map((file) => [shown(file), file]))('%s links to what exists', (_name, file) => {
    const broken = links
      .filter((link) => link.file === file)
      .flatMap((link) => {
        const problem = check(link);
        return problem ? [`${shown(link.file)}:${link.line}: (${link.target}) ${problem}`] : [];
      });
    if (broken.length > 0) expect.fail(`broken links:\n${broken.join('\n')}`);
  });
});
