// PUT of a CSV file to a presigned upload URL (Content-Type: text/csv, no API key). A browser has
// XMLHttpRequest and so byte progress; elsewhere fetch sends the body and progress jumps to the end
// (client/node.ts streams from disk with real progress instead).

export type UploadBody = Blob | Uint8Array | ArrayBuffer | string;

export interface UploadAnswer {
  status: number;
  text: string;
}

export type Uploader = (
  url: string,
  body: UploadBody,
  onProgress: (sentBytes: number, totalBytes: number) => void,
) => Promise<UploadAnswer>;

/** The few members of XMLHttpRequest used here (the project compiles without the DOM library). */
interface XhrLike {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  send(body: unknown): void;
  upload: { onprogress: ((event: { loaded: number; total: number }) => void) | null };
  onload: (() => void) | null;
  onerror: (() => void) | null;
  status: number;
  responseText: string;
}

function byteLength(body: UploadBody): number {
  if (typeof body === 'string') return new TextEncoder().encode(body).byteLength;
  if (body instanceof ArrayBuffer) return body.byteLength;
  if (body instanceof Uint8Array) return body.byteLength;
  return body.size;
}

export function createUploader(fetchFn: typeof fetch): Uploader {
  const Xhr = (globalThis as { XMLHttpRequest?: new () => XhrLike }).XMLHttpRequest;
  return Xhr ? xhrUploader(Xhr) : fetchUploader(fetchFn);
}

function fetchUploader(fetchFn: typeof fetch): Uploader {
  return async (url, body, onProgress) => {
    const total = byteLength(body);
    onProgress(0, total);
    const response = await fetchFn(url, {
      method: 'PUT',
      headers: { 'content-type': 'text/csv' },
      body: body as NonNullable<RequestInit['body']>,
    });
    const text = await response.text();
    if (response.status === 200) onProgress(total, total);
    return { status: response.status, text };
  };
}

function xhrUploader(Xhr: new () => XhrLike): Uploader {
  return (url, body, onProgress) =>
    new Promise((resolve, reject) => {
      const total = byteLength(body);
      const xhr = new Xhr();
      xhr.open('PUT', url);
      xhr.setRequestHeader('Content-Type', 'text/csv');
      xhr.upload.onprogress = (event) => onProgress(event.loaded, total);
      xhr.onload = () => {
        if (xhr.status === 200) onProgress(total, total);
        resolve({ status: xhr.status, text: xhr.responseText });
      };
      xhr.onerror = () => reject(new Error(`upload to ${new URL(url).host} failed (network error)`));
      onProgress(0, total);
      xhr.send(body);
    });
}
