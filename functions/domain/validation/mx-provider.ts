// The mailbox provider behind a domain, recognised from its MX host names.

const SUFFIXES: ReadonlyArray<readonly [string, string]> = [
  ['google.com', 'google'],
  ['googlemail.com', 'google'],
  ['outlook.com', 'microsoft'],
  ['hotmail.com', 'microsoft'],
  ['yahoodns.net', 'yahoo'],
  ['yahoo.com', 'yahoo'],
  ['zoho.com', 'zoho'],
  ['zoho.eu', 'zoho'],
  ['protonmail.ch', 'proton'],
  ['icloud.com', 'apple'],
  ['me.com', 'apple'],
  ['yandex.net', 'yandex'],
  ['yandex.ru', 'yandex'],
  ['mail.ru', 'mailru'],
  ['gmx.net', 'gmx'],
  ['web.de', 'webde'],
  ['aol.com', 'aol'],
  ['fastmail.com', 'fastmail'],
  ['messagingengine.com', 'fastmail'],
  ['qq.com', 'tencent'],
  ['163.com', 'netease'],
  ['mimecast.com', 'mimecast'],
  ['pphosted.com', 'proofpoint'],
  ['ppe-hosted.com', 'proofpoint'],
  ['barracudanetworks.com', 'barracuda'],
  ['secureserver.net', 'godaddy'],
  ['ovh.net', 'ovh'],
  ['ionos.com', 'ionos'],
  ['1and1.com', 'ionos'],
  ['amazonaws.com', 'amazon_ses'],
  ['mailgun.org', 'mailgun'],
  ['sendgrid.net', 'sendgrid'],
];

/** "google", "microsoft", ... for the first MX host with a known suffix; "other" or null (no MX). */
export function mxProviderOf(hosts: readonly string[]): string | null {
  if (hosts.length === 0) return null;
  for (const host of hosts) {
    const h = host.toLowerCase().replace(/\.$/, '');
    for (const [suffix, provider] of SUFFIXES) if (h === suffix || h.endsWith(`.${suffix}`)) return provider;
  }
  return 'other';
}
