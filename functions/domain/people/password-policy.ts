// The password policy of the user pool, in one place: the stack gives the pool these rules
// (lib/people.ts) and the API checks a chosen password against them first, so a refusal says what is
// missing before anything is created.

export const passwordPolicy = {
  minLength: 12,
  requireLowercase: true,
  requireUppercase: true,
  requireDigits: true,
  requireSymbols: true,
} as const;

/** Cognito's symbols (its documentation lists these), and the space. */
const symbols = /[\^$*.[\]{}()?"!@#%&/\\,><':;|_~`=+\- ]/;
const maxLength = 256;

/** What the policy wants, as one sentence, for the 400 of a refused password. */
const passwordPolicyText =
  `A password needs at least ${passwordPolicy.minLength} characters, with a lower-case letter, ` +
  'an upper-case letter, a digit and a symbol';

/** The missing parts of the policy, empty when the password meets it. */
export function passwordProblems(password: string): string[] {
  const problems: string[] = [];
  if (password.length < passwordPolicy.minLength)
    problems.push(`at least ${passwordPolicy.minLength} characters`);
  if (password.length > maxLength) problems.push(`at most ${maxLength} characters`);
  if (!/[a-z]/.test(password)) problems.push('a lower-case letter');
  if (!/[A-Z]/.test(password)) problems.push('an upper-case letter');
  if (!/[0-9]/.test(password)) problems.push('a digit');
  if (!symbols.test(password)) problems.push('a symbol');
  if (/^\s|\s$/.test(password)) problems.push('no space at the start or end');
  return problems;
}

/** The error text for a refused password: what the policy wants and what this one lacks. */
export function passwordRefusal(password: string): string | undefined {
  const problems = passwordProblems(password);
  return problems.length === 0 ? undefined : `${passwordPolicyText} (this one needs ${problems.join(', ')})`;
}
