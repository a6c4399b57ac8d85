// One webhook POST over node's http(s) with the SSRF-safe agent: a hard deadline, redirects not
// followed (node's request never follows them), and the response body drained but never buffered.
import * as http from 'node:http';
import * as https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { callbackAgent, refusalReason } from './callback-guard';
import type { AttemptResult } from './retry-policy';

/** Bytes of a response body we read (and discard) before hanging up; the status is all we need. */
const maxResponseBytes = 64 * 1024;

export interface PostInput {
  url: URL;
  headers: Record<string, string>;
  body: string;
  /** Deadline for connecting and receiving the status line and headers. */
  timeoutMs: number;
  allowPrivate: boolean;
}

/** Sends the request; never rejects: every way it can end is an AttemptResult. */
export function postWebhook(input: PostInput): Promise<AttemptResult> {
  const protocol = input.url.protocol === 'https:' ? 'https:' : 'http:';
  const send = protocol === 'https:' ? https.request : http.request;
  const body = Buffer.from(input.body, 'utf8');

  return new Promise((resolve) => {
    let statusCode: number | undefined;
    let settled = false;
    const finish = (result: AttemptResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    // Once the status is known the attempt is decided; later body or socket trouble changes nothing.
    const finishWithStatus = (): void => finish({ kind: 'response', statusCode: statusCode ?? 0 });

    const request = send(
      {
        ...urlToHttpOptions(input.url),
        method: 'POST',
        agent: callbackAgent(protocol, input.allowPrivate),
        headers: {
          ...input.headers,
          'content-length': String(body.length),
          'user-agent': 'mailvet-webhooks/1',
        },
      },
      (response) => {
        statusCode = response.statusCode ?? 0;
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > maxResponseBytes) response.destroy();
        });
        response.on('end', finishWithStatus);
        response.on('close', finishWithStatus);
        response.on('error', finishWithStatus);
      },
    );

    const timer = setTimeout(() => {
      if (statusCode !== undefined) finishWithStatus();
      else finish({ kind: 'timeout', error: `No response within ${input.timeoutMs} ms` });
      request.destroy();
    }, input.timeoutMs);

    request.on('error', (error: NodeJS.ErrnoException) => {
      if (statusCode !== undefined) return finishWithStatus();
      const refused = refusalReason(error);
      if (refused) return finish({ kind: 'refused', error: refused });
      finish({ kind: 'network', error: `Connection error: ${error.code ?? error.message}` });
    });

    request.end(body);
  });
}
