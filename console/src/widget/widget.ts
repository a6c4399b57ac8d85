// The signup-form widget, served as /widget.js: a page loads it with
//   <script src="https://<console>/widget.js" data-key="mv_pub_..." defer></script>
// and every input[type=email] is checked when it loses focus. No dependencies, no framework: it must stay
// small (a test holds it under 10 KB gzipped) and must not disturb the page it is put on.

/** What POST /v1/email/validate answers a publishable key. */
interface Verdict {
  email: string;
  result: { status: string; reason: string; subStatus: string | null };
  didYouMean?: string;
}

interface Config {
  key: string;
  api: string;
  /** Statuses that stop the form from being sent. */
  blockOn: string[];
}

const messages: Record<string, string> = {
  block_bounce_risk: 'This address does not seem able to receive email. Please check it.',
  do_not_mail_abuse: 'Please use a different address: this one cannot be used to sign up.',
  dead_email: 'This address does not seem to be in use any more. Please check it.',
};

function readConfig(script: HTMLScriptElement): Config | undefined {
  const key = script.dataset.key;
  if (!key) {
    console.warn('mailvet widget: the script tag needs data-key="mv_pub_..."');
    return undefined;
  }
  // The API defaults to the origin the widget was loaded from (npm start serves both).
  const api = (script.dataset.api ?? new URL(script.src, location.href).origin).replace(/\/+$/, '');
  const blockOn = (script.dataset.block ?? 'block_bounce_risk,do_not_mail_abuse')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return { key, api, blockOn };
}

let ids = 0;

function attach(input: HTMLInputElement, config: Config): void {
  if (input.dataset.mailvet) return;
  input.dataset.mailvet = 'on';
  const message = document.createElement('div');
  message.id = `mailvet-message-${++ids}`;
  message.className = 'mailvet-message';
  // Screen readers announce what is written here without moving the focus.
  message.setAttribute('role', 'status');
  message.setAttribute('aria-live', 'polite');
  input.insertAdjacentElement('afterend', message);
  input.setAttribute(
    'aria-describedby',
    [input.getAttribute('aria-describedby'), message.id].filter(Boolean).join(' '),
  );

  let checked: { email: string; verdict: Verdict | undefined } | undefined;
  let running: { email: string; verdict: Promise<Verdict | undefined> } | undefined;

  const blocked = () => !!checked?.verdict && config.blockOn.includes(checked.verdict.result.status);

  const show = (verdict: Verdict | undefined) => {
    message.textContent = '';
    message.removeAttribute('data-state');
    input.removeAttribute('aria-invalid');
    if (!verdict) return;
    if (verdict.didYouMean) {
      const suggestion = verdict.didYouMean;
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'mailvet-suggestion';
      button.textContent = suggestion;
      button.addEventListener('click', () => {
        input.value = suggestion;
        input.dispatchEvent(new Event('input', { bubbles: true }));
        input.focus();
        void check();
      });
      message.append('Did you mean ', button, '?');
      message.dataset.state = 'suggestion';
    }
    if (blocked()) {
      const text = messages[verdict.result.status] ?? 'Please check this address.';
      message.append(message.textContent ? ` ${text}` : text);
      message.dataset.state = 'blocked';
      input.setAttribute('aria-invalid', 'true');
    }
  };

  const check = async (): Promise<Verdict | undefined> => {
    const email = input.value.trim();
    if (!email) {
      checked = undefined;
      show(undefined);
      return undefined;
    }
    if (checked?.email === email) return checked.verdict;
    // A submit while the blur's call is under way waits for that call instead of making another.
    if (running?.email === email) return running.verdict;
    const verdict = fetch(`${config.api}/v1/email/validate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': config.key },
      body: JSON.stringify({ email }),
    })
      .then(async (response) => (response.status === 200 ? ((await response.json()) as Verdict) : undefined))
      // Out of allowance, offline or blocked: the visitor's form still works, unchecked.
      .catch(() => undefined)
      .then((answer) => {
        if (running?.email === email) running = undefined;
        if (input.value.trim() === email) {
          checked = { email, verdict: answer };
          show(answer);
        }
        return answer;
      });
    running = { email, verdict };
    return verdict;
  };

  input.addEventListener('blur', () => void check());
  input.addEventListener('input', () => {
    if (checked && checked.email !== input.value.trim()) show((checked = undefined));
  });

  const form = input.form;
  if (!form) return;
  form.addEventListener('submit', (event) => {
    if (form.dataset.mailvetChecked === 'yes') {
      delete form.dataset.mailvetChecked;
      return;
    }
    const email = input.value.trim();
    if (checked?.email === email && !running) {
      if (blocked()) {
        event.preventDefault();
        event.stopImmediatePropagation();
        input.focus();
      }
      return;
    }
    // Not checked yet (Enter pressed in the field): check, then send the form only if it may go.
    event.preventDefault();
    event.stopImmediatePropagation();
    void check().then(() => {
      if (blocked()) return input.focus();
      form.dataset.mailvetChecked = 'yes';
      form.requestSubmit();
    });
  });
}

function start(script: HTMLScriptElement): void {
  const config = readConfig(script);
  if (!config) return;
  const attachAll = () =>
    document
      .querySelectorAll<HTMLInputElement>('input[type=email]')
      .forEach((input) => attach(input, config));
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', attachAll);
  else attachAll();
}

const current = document.currentScript;
if (current instanceof HTMLScriptElement) start(current);
