// The README and docs/ link only to files of this repository, and every such file and heading exists: a
// reader of the repository can open everything they point to.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const documents = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** Markdown link and image targets, and autolinks (`<https://...>`), outside code. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');
  return [
    ...[...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!),
    ...[...prose.matchAll(/<([a-z]+:[^>\s]+)>/g)].map((m) => m[1]!),
  ];
}

/** The anchors GitHub gives a Markdown file's headings (duplicates numbered), and its explicit ids. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const prose = markdown.replace(/^```[\s\S]*?^```$/gm, '');
  for (const [, heading] of prose.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = heading!
      .replace(/<[^>]+>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const [, id] of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id!);
  return anchors;
}

describe.each(documents)('%s', (document) => {
  const targets = linkTargets(readFileSync(path.join(root, document), 'utf8'));

  it('links only inside the repository, to files that exist', () => {
    for (const target of targets) {
      expect({ target, outside: /^[a-z][a-z0-9+.-]*:|^\/\//i.test(target) }).toEqual({
        target,
        outside: false,
      });
      const file = target.split('#')[0]!;
      if (file === '') continue;
      const resolved = path.relative(root, path.resolve(root, path.dirname(document), decodeURI(file)));
      expect({ target, escapes: resolved.startsWith('..') }).toEqual({ target, escapes: false });
      expect({ target, exists: existsSync(path.join(root, resolved)) }).toEqual({ target, exists: true });
    }
  });

  it('links to headings that exist, in this file or the one it names', () => {
    for (const target of targets) {
      const [file, anchor] = target.split('#');
      if (anchor === undefined || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const linked = file === '' ? document : path.join(path.dirname(document), decodeURI(file!));
      if (!linked.endsWith('.md')) continue;
      const anchors = anchorsOf(readFileSync(path.join(root, linked), 'utf8'));
      expect({ target, found: anchors.has(decodeURIComponent(anchor)) }).toEqual({ target, found: true });
    }
  });
});
