// Validate one address: the status, the reason in words, a "did you mean" and the details.
import { useState } from 'preact/hooks';
import type { Api, ValidationResult } from '../api';
import { html } from '../html';
import { ErrorMessage, PageTitle, valueTo } from '../ui';
import { reasonText, statusWords } from '../words';

const yesNo = (value: unknown) => (value === true ? 'yes' : value === false ? 'no' : 'unknown');

export function ValidatePage({ api }: { api: Api }) {
  const [email, setEmail] = useState('');
  const [result, setResult] = useState<ValidationResult>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const check = async (address: string) => {
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult(await api.validateEmail(address));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: Event) => {
    event.preventDefault();
    if (!email.trim()) return setError(new Error('Enter an email address.'));
    void check(email.trim());
  };

  return html`<section>
    <${PageTitle}>Validate an address<//>
    <form class="inline" onSubmit=${submit}>
      <label for="email">Email address</label>
      <input
        id="email"
        type="text"
        inputmode="email"
        autocomplete="off"
        value=${email}
        onInput=${valueTo(setEmail)}
      />
      <button type="submit" disabled=${busy}>${busy ? 'Checking…' : 'Validate'}</button>
    </form>
    <${ErrorMessage} error=${error} />
    ${result && html`<${Result} result=${result} onTry=${(s: string) => (setEmail(s), void check(s))} />`}
  </section>`;
}

function Result({ result, onTry }: { result: ValidationResult; onTry: (email: string) => void }) {
  const words = statusWords[result.result.status];
  const details: [string, string][] = [
    ['Domain', result.domain.name],
    ['Mail servers', result.domain.mxRecords.length ? `${result.domain.mxRecords.length}` : 'none'],
    ['Mail provider', result.domain.mxProvider ?? 'unknown'],
    ['Accepts any address (catch-all)', yesNo(result.domain.isCatchAll)],
    ['Disposable domain', yesNo(result.domain.isDisposable)],
    ['Free mail provider', yesNo(result.domain.isFreeProvider)],
    ['Role address', yesNo(result.mailbox.isRoleAccount)],
    ['Reason code', result.result.reason + (result.result.subStatus ? ` (${result.result.subStatus})` : '')],
    ['Checked at', result.validatedAt],
  ];
  const reply = result.mailbox.smtpReply;
  if (reply)
    details.splice(-1, 0, [
      'Mail server said',
      [reply.code, reply.enhanced, reply.text].filter(Boolean).join(' '),
    ]);
  return html`<article class="result" aria-live="polite" data-status=${result.result.status}>
    <h2>${result.email}</h2>
    <p class="verdict">
      <span class="badge" style=${`background:${words.color}`}>${words.label}</span>
      <span>${words.meaning}</span>
    </p>
    <p class="reason">${reasonText(result.result.reason)}</p>
    ${
      result.didYouMean &&
      html`<p class="suggestion">
        Did you mean${' '}
        <button type="button" class="link" onClick=${() => onTry(result.didYouMean!)}>
          ${result.didYouMean}</button
        >?
      </p>`
    }
    <dl class="details">
      ${details.map(
        ([term, value]) =>
          html`<div>
            <dt>${term}</dt>
            <dd>${value}</dd>
          </div>`,
      )}
    </dl>
  </article>`;
}
