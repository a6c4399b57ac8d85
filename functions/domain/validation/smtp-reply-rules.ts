// The table behind smtp-reply.ts: what a mail server's reply says, from the enhanced status codes of
// RFC 3463 / RFC 5248 and the reply texts the big providers and MTAs publish. Every rule names its
// source. Texts are matched case-insensitively against the whole reply (all lines joined by spaces).
//
// Sources, cited by key in the rules below:
//   rfc3463     https://www.rfc-editor.org/rfc/rfc3463 (enhanced status codes)
//   rfc5248     https://www.iana.org/assignments/smtp-enhanced-status-codes (the code registry)
//   rfc5321     https://www.rfc-editor.org/rfc/rfc5321#section-4.2 (basic reply codes)
//   ms-ndr      https://learn.microsoft.com/exchange/mail-flow-best-practices/non-delivery-reports-in-exchange-online/non-delivery-reports-in-exchange-online
//   ms-dbeb     https://learn.microsoft.com/exchange/mail-flow-best-practices/use-directory-based-edge-blocking
//   google      https://support.google.com/a/answer/3726730 (Gmail SMTP error reference)
//   yahoo       https://senders.yahooinc.com/smtp-error-codes/
//   sisimai     github.com/sisimai/rb-sisimai lib/sisimai/reason/*.rb and lib/sisimai/rhost/*.rb
//   reacher     github.com/reacherhq/check-if-email-exists core/src/smtp/parser.rs
//   zonemta     github.com/zone-eu/zone-mta config/bounces.txt
//   postfix     https://www.postfix.org/postconf.5.html (reject texts of smtpd_*_restrictions)
//   qmail       qmail-smtpd.c / vpopmail texts ("sorry, no mailbox here by that name (#5.1.1)")
//   exim        https://www.exim.org/exim-html-current/doc/html/spec_html/ch-access_control_lists.html
//   mimecast    https://community.mimecast.com/s/article/Mimecast-SMTP-Error-Codes-842605754
//   proofpoint  https://help.proofpoint.com/ (ipcheck.proofpoint.com block replies)
//   barracuda   https://campus.barracuda.com/ (Barracuda Email Security Gateway reply texts)
//   opensmtpd   OpenSMTPD smtpd/esc.c (enhanced status texts) and the replies of its 6.8.0p2 as run here
//   bmh         PHPMailer-BMH (bounce mail handler) bmhDSNRules: rules 0160 and 0195 and their Diagnostic-Code samples

/** What a reply says: about the mailbox (the first three), about the moment, or about us. */
export type ReplyMeaning = 'accepted' | 'not_found' | 'disabled' | 'full' | 'temporary' | 'about_us';

/** A rule on the reply text, optionally only for some codes. */
export interface TextRule {
  meaning: Exclude<ReplyMeaning, 'accepted'>;
  text: RegExp;
  /** Only when the enhanced code matches (e.g. /^5\.4\.1$/). */
  enhanced?: RegExp;
  /** Only for these reply classes: 4 (transient) or 5 (permanent); both when absent. */
  classes?: readonly (4 | 5)[];
  source: string;
}

/**
 * Provider rules that need the code and the text together: checked first, because the same words mean
 * something else elsewhere ("Access denied" from Postfix is a policy; from Microsoft 365 under 5.4.1 it
 * is a recipient its directory does not know).
 */
export const PROVIDER_RULES: readonly TextRule[] = [
  // Directory-Based Edge Blocking: the recipient is not in the tenant's directory
  {
    meaning: 'not_found',
    text: /recipient address rejected: access denied/i,
    enhanced: /^5\.4\.1$/,
    source: 'ms-ndr 5.4.1; ms-dbeb; sisimai rhost/microsoft.rb userunknown; zonemta',
  },
  {
    meaning: 'not_found',
    text: /access denied\. AS\(201806281\)/i,
    source: 'ms-dbeb (AS(201806281) marks a DBEB rejection)',
  },
  // Exchange Online: 5.7.504 / 5.7.505 mean the recipient itself is refused or blocked
  {
    meaning: 'disabled',
    text: /access denied, banned recipient/i,
    source: 'ms-ndr 5.7.505; sisimai rhost/microsoft.rb suspend',
  },
  {
    meaning: 'disabled',
    text: /recipient address rejected: access denied/i,
    enhanced: /^5\.7\.504$/,
    source: 'ms-ndr 5.7.504; sisimai rhost/microsoft.rb suspend',
  },
  // Exchange: "RESOLVER.ADR.RecipNotFound" / "RecipientNotFound" whatever the code
  {
    meaning: 'not_found',
    text: /resolver\.adr\.(ex)?recip(ient)?notfound|recipientnotfound|recipient not found by smtp address lookup/i,
    source: 'ms-ndr 5.1.1 and 5.1.10; sisimai rhost/microsoft.rb userunknown',
  },
  // Outlook.com answers an unknown mailbox with 5.5.0 and RFC 5321's example text for 550
  {
    meaning: 'not_found',
    text: /requested actions? not taken:? (as the )?mailbox (is )?unavailable/i,
    enhanced: /^5\.5\.0$/,
    source:
      'sisimai reason/userunknown.rb ("requested action not taken: mailbox unavailable"); Outlook.com "550 5.5.0 Requested action not taken: mailbox unavailable"',
  },
  // OpenSMTPD: a recipient its virtual table does not list fails expansion, and it says so with the
  // mailing-list code; the address is named, the mailbox does not exist
  {
    meaning: 'not_found',
    text: /mailing list expansion problem: <[^>]*>/i,
    enhanced: /^5\.2\.4$/,
    source:
      'opensmtpd (esc.c ESC_MAILING_LIST_EXPANSION_PROBLEM; the reply of 6.8.0p2 to a recipient its virtual table lacks)',
  },
  // Postfix reject_unverified_recipient while the probe is still running: not an answer yet
  {
    meaning: 'temporary',
    text: /address verification in progress|unverified address: .*(try again|in progress)/i,
    classes: [4],
    source: 'postfix (reject_unverified_recipient, unverified_recipient_tempfail_action)',
  },
];

/**
 * Texts that decide whatever code came with them (providers misuse codes: a per-hour limit as 5.1.1,
 * a Spamhaus listing as 5.2.1, "no such user" under 5.7.1). Checked in order, first match wins:
 * what is about the moment, then what is about us, then what is about the mailbox.
 */
export const TEXT_RULES: readonly TextRule[] = [
  // --- temporary: greylisting, rate limits, too many connections/recipients (any code) ---
  {
    meaning: 'temporary',
    text: /grey ?list|gray ?list/i,
    source: 'zonemta ("4xx ... Greylist"); postgrey "Greylisted, see http://postgrey.schweikert.ch/"',
  },
  {
    meaning: 'temporary',
    text: /receiving mail at a rate that prevents additional messages|receiving mail too quickly/i,
    source: 'google (450 4.2.1 / 550-5.2.1); sisimai reason/speeding.rb; yahoo',
  },
  {
    meaning: 'temporary',
    text: /rate limit|rate-limit|ratelimit|too many (connections|sessions|concurrent|recipients|requests|rcpt)|frequency limited|(per|an|each) hour|max(imum)? (emails|messages) per (hour|minute|day)|per hour message receive limit|exceeded the max emails per hour|message receive limit|try again slower|trop de connexions|excessive volume|due to unexpected volume|thread limit|max message per connection/i,
    source:
      'sisimai reason/speeding.rb, reason/toomanyconn.rb, rhost/microsoft.rb (5.2.121, 5.2.122), rhost/yahooinc.rb, rhost/apple.rb; zonemta (Orange "Too many connections")',
  },
  {
    meaning: 'temporary',
    text: /temporar(il)?y (deferred|unavailable|rejected|blocked|not available|suspended due to)|try (again )?later|please retry|service (is )?(currently )?(temporarily )?unavailable, try/i,
    classes: [4],
    source: 'zonemta ("4xx ... try again"); rfc5321 4xx transient',
  },
  // --- about us: our IP or HELO listed, reputation, policy, relaying, authentication, TLS ---
  {
    meaning: 'about_us',
    text: /too many (invalid|unknown|bad) (recipients|users|rcpt)|too many (errors|failed recipients)/i,
    source:
      'zonemta ("550 Too many invalid recipients" blocks the sending IP); sisimai toomanyconn.rb (Free.fr "too many errors from your IP")',
  },
  {
    meaning: 'about_us',
    text: /spamhaus|spamcop|barracuda|sorbs|abusix|uceprotect|invaluement|cloudmark|hostkarma|junkemailfilter|spamrl|ipcheck\.proofpoint|proofpoint reputation|trend micro|mail-abuse\.com|senderbase|psbl|surbl|uribl|\bzen\.|\bdnsbl\b|\brbl\b/i,
    source:
      'zonemta (blocklist section); reacher parser.rs is_err_ip_blacklisted; sisimai rhost/apple.rb blocked',
  },
  {
    meaning: 'about_us',
    text: /black ?list|block ?list|blocked using|listed (at|on|in|by)|is listed|on our block|banned sending ip|banned sender|poor reputation|bad reputation|low reputation|ip reputation|sender reputation|reputation (of|service)|not allowed to connect|connections? (not|will not be) accepted|rejected for policy reasons|client host (\[.*?\] )?(rejected|blocked)|your ip|sending ip|sender ip|from your (ip|location|network)|dynamic ip|residential|geoip|administratively denied|access denied, (bad|rejected|spam)|ip name lookup failed|junkmail rejected/i,
    source:
      'zonemta (blocklist, Hotmail, AOL RTR, Yahoo BL/TSS, Comcast, Mimecast sections); reacher parser.rs; ms-ndr 5.7.506-5.7.513, 5.7.606-649; sisimai rhost/microsoft.rb blocked',
  },
  {
    // our sender address or its domain, checked by the server (Exim, Sendmail 5.1.8): about us
    meaning: 'about_us',
    text: /sender verif(y|ication) failed|verification failed for <|domain of sender address|sender domain|sender address (rejected|does not exist|invalid)|unverifiable sender/i,
    source:
      'exim ("Sender verify failed"); sendmail ("553 5.1.8 ... Domain of sender address ... does not exist"); postfix (reject_unverified_sender)',
  },
  {
    meaning: 'about_us',
    text: /relay(ing)? (access )?(denied|not permitted|not allowed|prohibited)|unable to relay|not permitted to relay|open relay|allowed rcpthosts|relay not permitted|we do not relay|rcpthosts/i,
    source:
      'postfix ("Relay access denied"); qmail ("sorry, that domain isn\'t in my list of allowed rcpthosts"); sisimai reason/norelaying.rb; ms-ndr 5.7.1 unable to relay',
  },
  {
    meaning: 'about_us',
    text: /starttls|must issue a|tls required|encryption (needed|required)|authentication required|must (be )?authenticat|not authenticated|sender .*not authenticated|requires all senders to authenticate|\bspf\b|\bdkim\b|\bdmarc\b|sender policy framework|\bhelo\b|\behlo\b|reverse dns|\bptr\b|rdns|forward.confirmed|fcrdns|sender address rejected|sender (denied|blocked|refused)|envelope blocked|anti-spoofing|not authorized to send|unauthenticated/i,
    source:
      'google (5.7.0 starttls, 5.7.26, 5.7.25, 5.5.4 helo); ms-ndr 5.7.1, 5.7.57, 5.7.25; sisimai reason/securityerror.rb, requireptr.rb, authfailure.rb; mimecast (anti-spoofing, envelope blocked)',
  },
  {
    meaning: 'about_us',
    text: /\bspam\b|unsolicited|content (filter|examination)|message (content )?(rejected|refused) (as|due)|looks like spam|suspicious|phish|virus|malware/i,
    source: 'google (5.7.1 unsolicited mail); zonemta ("5.7.1 ... spam"); reacher parser.rs',
  },
  // Gmail's OverQuotaPerm: the mailbox is out of space (and has been for long); its "inactive" is why
  // it stays full, not a disabled account. Before the disabled words, which would match "inactive".
  {
    meaning: 'full',
    text: /out of storage space/i,
    source: 'sisimai-rhost:google (552 5.2.2 "inbox is out of storage space and inactive", OverQuotaPerm)',
  },
  // --- disabled: the mailbox exists (or existed) but takes no mail (5xx only: a 4xx is retried) ---
  {
    meaning: 'disabled',
    text: /disabled|discontinued|deactivated|de-activated|frozen|suspended|inactive|not active|no longer active|is locked|account (is )?locked|temporar(il)?y locked|account is blocked|compte du destinataire est bloque|expired account|account (has )?expired|is expired|archived recipient|terminated|user account is unavailable|mailbox cannot be accessed|has been closed|account closed|account is closed|no longer (accepts|accepting) mail|recipient suspend/i,
    classes: [5],
    source:
      'sisimai reason/suspend.rb; reacher parser.rs is_disabled_account; google (5.2.1 DisabledUser, "is inactive"); yahoo ("This account has been disabled or discontinued"); zonemta (Hot.ee "expired account", Mail.ee "Inactive user"); ms-ndr 5.2.1',
  },
  // --- full ---
  {
    meaning: 'full',
    text: /over ?quota|quota exceeded|exceed(ed|s|ing)? (its |their |the |his |her )?(mailbox |disk |storage )?quota|mailbox (is )?full|mailbox (size )?limit exceeded|full mailbox|mailfolder is full|inbox is full|out of storage|not enough (storage|space)|insufficient (disk|storage) space|disk quota|storage (allocation|space) (exceeded|limit)|exceeded storage allocation|would exceed|too many messages (on the server|in (the )?mailbox)|boite du destinataire pleine|overquota/i,
    source:
      'sisimai reason/mailboxfull.rb; reacher parser.rs is_full_inbox; google (452 4.2.2 OverQuotaTemp, 552 5.2.2); zonemta (Orange "Recipient overquota", Hot.ee)',
  },
  // --- not found: unknown user, no such mailbox, not a valid recipient (4xx too: "User unknown") ---
  {
    meaning: 'not_found',
    text: /user unknown|unknown user|unknown (recipient|mailbox|local ?part|address|alias)|recipient unknown|address unknown|mailbox unknown|no such (user|mailbox|recipient|address|person|account)|no mailbox|no account by that name|(user|recipient|mailbox|address|account|e-?mail) (does not|doesn'?t|dosn'?t) exist|does not exist|doesn'?t exist|not exist|(user|recipient|mailbox|address) not found|mailbox not available|not a (valid|known) (user|recipient|mailbox|address)|is not a known user|invalid (recipient|mailbox|user|address|email address|e-mail address)|(recipient|address|mailbox|user) (is )?invalid|bad destination mailbox|bad address|(doesn'?t|does not) have an? .*account|have an account|not our customer|not a local address|not local|no longer (available|valid|exists?)|unrouteable address|unroutable address|could not be found|undeliverable address|utilisateur inconnu|usuario (desconocido|inexistente)|unbekannt|badrcptto|not in my validrcptto|invalid-recipient|no valid recipients|there is no one at this address|address rejected: user unknown|not listed in (domino|the) directory|not handled by this system|not a registered (gateway )?user|recipient rejected|(user|recipient|address|mailbox) not a member of domain|command rcpt user <[^>]*> not ok/i,
    source:
      'sisimai reason/userunknown.rb; reacher parser.rs is_invalid; google (550 5.1.1 NoSuchUser); yahoo (554 "dd This user doesn\'t have a yahoo.com account"); qmail ("no mailbox here by that name"); postfix ("User unknown in virtual alias table", "in local recipient table"); exim ("Unrouteable address"); zonemta (recipient category); bmh 0195 ("550 User not a member of domain"), 0160 ("550 Command RCPT User <...> not OK")',
  },
];

/**
 * Enhanced codes (RFC 3463 class.subject.detail) when no rule above decided. Checked in order, the
 * first pattern that matches the code wins.
 */
export const ENHANCED_RULES: readonly {
  code: RegExp;
  meaning: Exclude<ReplyMeaning, 'accepted'>;
  source: string;
}[] = [
  {
    code: /^2\./,
    meaning: 'temporary',
    source: 'rfc3463 2.X.X success (never a refusal: read as not decided)',
  },
  // X.1.1 bad destination mailbox address, X.1.10 recipient address has null MX / Microsoft RecipientNotFound,
  // X.1.0 other address status, X.1.3 bad destination mailbox syntax, X.1.6 mailbox has moved
  {
    code: /^5\.1\.(0|1|3|6|10)$/,
    meaning: 'not_found',
    source: 'rfc3463 5.1.1, 5.1.3, 5.1.6; ms-ndr 5.1.10',
  },
  // X.2.1 mailbox disabled, not accepting messages
  {
    code: /^5\.2\.1$/,
    meaning: 'disabled',
    source: 'rfc3463 5.2.1 (Mailbox disabled, not accepting messages)',
  },
  // X.2.2 mailbox full
  { code: /^[45]\.2\.2$/, meaning: 'full', source: 'rfc3463 X.2.2 (Mailbox full)' },
  // X.7.x security or policy status: about the sender, not the mailbox
  { code: /^5\.7\./, meaning: 'about_us', source: 'rfc3463 X.7.X (Security or Policy Status)' },
  { code: /^4\./, meaning: 'temporary', source: 'rfc3463 4.X.X (Persistent Transient Failure)' },
  // other 5.x.x: the destination system (5.3), network (5.4), protocol (5.5), content (5.6), other
  // address statuses (5.1.2 bad destination system, 5.1.7/8 our sender): nothing about the mailbox
  { code: /^5\./, meaning: 'about_us', source: 'rfc3463 5.1.2, 5.1.7, 5.1.8, 5.3.X, 5.4.X, 5.5.X, 5.6.X' },
];

/**
 * Generic words, only when neither a rule nor the enhanced code decided (a bare "550 Mailbox
 * unavailable" or "554 Rejected").
 */
export const WEAK_TEXT_RULES: readonly TextRule[] = [
  {
    meaning: 'not_found',
    text: /mailbox (is )?unavailable|unavailable mailbox|address rejected|recipient rejected|not found|invalid/i,
    classes: [5],
    source:
      'rfc5321 550 ("mailbox unavailable (e.g., mailbox not found ...)"); reacher parser.rs ("mailbox unavailable", "address rejected")',
  },
  {
    meaning: 'about_us',
    text: /denied|blocked|refused|policy|not permitted|not allowed|prohibited|rejected/i,
    source: 'rfc5321 550 ("command rejected for policy reasons"); zonemta',
  },
];

/** Basic codes (RFC 5321 4.2) when nothing else decided. */
export function meaningOfBasicCode(code: number): Exclude<ReplyMeaning, 'accepted'> {
  // 551 user not local: there is no such mailbox here (rfc5321 4.2.2; "551 not our customer")
  if (code === 551) return 'not_found';
  // 552 requested mail action aborted: exceeded storage allocation (rfc5321 4.2.2)
  if (code === 552) return 'full';
  if (code >= 400 && code < 500) return 'temporary';
  // 550 (unavailable: not found OR policy), 553, 554 and the rest: no evidence either way
  return 'about_us';
}
