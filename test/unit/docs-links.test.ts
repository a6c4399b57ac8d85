// The README and docs/ link only to files of this repository, and every such file exists: a reader of
// the repository can open everything they point to.
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
});
