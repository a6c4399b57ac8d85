// The tag that identifies one placement test, where it travels (the Message-ID, and the end of the
// subject, as warm-up networks put a code in it), and the plain, human-looking text of a test.
import { createHash, randomBytes } from 'node:crypto';

/** Crockford's base32: no I, L, O or U, so a tag reads unambiguously. */
const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const tagLength = 10;

export function newTag(random: (n: number) => Buffer = randomBytes): string {
  return [...random(tagLength)].map((byte) => alphabet[byte % 32]).join('');
}

/** What every test Message-ID of a day contains: a reading searches its folders for it. */
export function dayMarker(day: string): string {
  return `mvp.${day.replaceAll('-', '')}.`;
}

/** The Message-ID of a test (no angle brackets), in the sender's domain. */
export function placementMessageId(day: string, tag: string, senderDomain: string): string {
  return `${dayMarker(day)}${tag}@${senderDomain}`;
}

const messageIdPattern = /^<?mvp\.(\d{4})(\d{2})(\d{2})\.([0-9A-HJKMNP-TV-Z]{10})@[^>\s]+>?$/i;
const subjectPattern = /\b([0-9A-HJKMNP-TV-Z]{10})\s*$/;

/** The day and tag of a test's Message-ID; null for any other message. */
export function parsePlacementMessageId(messageId: string): { day: string; tag: string } | null {
  const match = messageIdPattern.exec(messageId.trim());
  if (!match) return null;
  const [, y, m, d, tag] = match;
  return { day: `${y}-${m}-${d}`, tag: tag!.toUpperCase() };
}

/** The tag at the end of a test's subject (when a provider rewrote the Message-ID); null when none. */
export function tagOfSubject(subject: string): string | null {
  return subjectPattern.exec(subject)?.[1]?.toUpperCase() ?? null;
}

const openings = [
  'Quick question about next week',
  'Notes from our call',
  'Following up on Thursday',
  'Lunch plans',
  'The draft you asked for',
  'Checking in',
  'A thought on the schedule',
  'Thanks for yesterday',
];
const bodies = [
  'Hi {to},\n\nDo you have a few minutes on Tuesday or Wednesday to go over the plan? Either works for me.\n\nThanks,\n{from}',
  'Hi {to},\n\nThanks again for the chat earlier. I wrote down the main points and will share them once they are tidied up.\n\nBest,\n{from}',
  'Hello {to},\n\nJust checking that the time we picked still suits you. Let me know if anything changed.\n\nCheers,\n{from}',
  'Hi {to},\n\nI had another look at the timeline and I think we can keep the original dates. Happy to talk it through.\n\nRegards,\n{from}',
];

function firstName(email: string): string {
  const local = email.slice(0, email.indexOf('@')).split(/[._+-]/)[0] ?? '';
  return local ? local[0]!.toUpperCase() + local.slice(1).toLowerCase() : 'there';
}

/** A test's subject and text: innocent (no link, image or tracking), varied by the tag, ending with it. */
export function testContent(tag: string, from: string, to: string): { subject: string; text: string } {
  const pick = createHash('sha256').update(tag).digest();
  const subject = `${openings[pick[0]! % openings.length]} ${tag}`;
  const text = bodies[pick[1]! % bodies.length]!.replace('{to}', firstName(to)).replace(
    '{from}',
    firstName(from),
  );
  return { subject, text: `${text}\n` };
}
