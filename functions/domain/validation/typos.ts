// didYouMean for misspelt popular providers (gmial.com -> gmail.com, gmail.co -> gmail.com).
// A suggestion is advice only: the verdict still comes from DNS and the lists, never from the typo.
import commonProviders from 'email-providers/common.json';
import { getDomainWithoutSuffix, getPublicSuffix } from 'tldts';

/** The providers people misspell most; a short list on purpose (more targets, more false hits). */
const POPULAR_PROVIDERS: readonly string[] = [
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'ymail.com',
  'rocketmail.com',
  'hotmail.com',
  'outlook.com',
  'live.com',
  'msn.com',
  'aol.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'protonmail.com',
  'proton.me',
  'gmx.com',
  'gmx.de',
  'gmx.net',
  'web.de',
  'yandex.ru',
  'yandex.com',
  'mail.ru',
  'zoho.com',
  'comcast.net',
  'verizon.net',
  'att.net',
  'sbcglobal.net',
  'hotmail.co.uk',
  'yahoo.co.uk',
  'btinternet.com',
  'orange.fr',
  'free.fr',
  't-online.de',
  'qq.com',
  '163.com',
];

/** Real domains that must never get a suggestion, however close they are to a popular one. */
const KNOWN = new Set<string>([...POPULAR_PROVIDERS, ...commonProviders]);

interface Target {
  domain: string;
  name: string;
  suffix: string;
}
const targets: Target[] = POPULAR_PROVIDERS.map((domain) => ({
  domain,
  name: getDomainWithoutSuffix(domain) ?? domain,
  suffix: getPublicSuffix(domain) ?? '',
}));

/** Misspellings of "com" and "net" that are themselves real TLDs or common slips (co, cm, om, con, ...). */
const SUFFIX_TYPOS: Readonly<Record<string, string>> = {
  co: 'com',
  cm: 'com',
  om: 'com',
  con: 'com',
  cmo: 'com',
  ocm: 'com',
  comm: 'com',
  coom: 'com',
  vom: 'com',
  xom: 'com',
  cpm: 'com',
  c0m: 'com',
  ccom: 'com',
  nte: 'net',
  ner: 'net',
  nt: 'net',
  met: 'net',
};

/** Optimal string alignment distance (Levenshtein plus adjacent transposition), capped at max+1. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const prev2 = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = new Array<number>(b.length + 1).fill(0);
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, (prev2[j - 2] ?? 0) + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    prev2.splice(0, prev2.length, ...prev);
    prev = cur;
  }
  return prev[b.length] ?? max + 1;
}

function suffixMatches(suffix: string, target: string): boolean {
  return suffix === target || SUFFIX_TYPOS[suffix] === target;
}

/** The popular provider the domain is probably a misspelling of, or null. */
export function suggestDomain(domain: string): string | null {
  if (KNOWN.has(domain)) return null;
  const suffix = getPublicSuffix(domain) ?? '';
  const name = getDomainWithoutSuffix(domain) ?? '';
  if (!name || domain !== `${name}.${suffix}`) return null; // subdomains (mail.gmail.com) are not typos
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const t of targets) {
    const sameSuffix = suffixMatches(suffix, t.suffix);
    // gmail.co, gmail.con: the provider's name exactly, its TLD misspelt
    if (name === t.name && sameSuffix) return t.domain;
    if (!sameSuffix) continue;
    // short names (aol, gmx, live) are one keystroke from many real domains: no fuzzy match for them
    if (t.name.length < 5) continue;
    const max = t.name.length >= 7 ? 2 : 1;
    const d = editDistance(name, t.name, max);
    if (d <= max && d < bestDistance) {
      best = t.domain;
      bestDistance = d;
    }
  }
  return best;
}
