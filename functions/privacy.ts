// Email addresses are personal data and never reach a log line: text that may hold one (a request
// path a caller typed) goes through withoutEmails first.

/** Anything shaped like an address (`@` or its URL encoding `%40` between two words) becomes `[email]`. */
export function withoutEmails(text: string): string {
  return text.replace(/[^\s/?&=#]+(?:@|%40)[^\s/?&=#]+/gi, '[email]');
}
