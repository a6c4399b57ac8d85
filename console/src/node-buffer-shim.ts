// The console bundle's `node:buffer` (esbuild alias): the service's encoding detection imports `isUtf8`
// from Node; in the browser, a fatal TextDecoder answers the same question.
export { Buffer } from 'buffer';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export function isUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}
