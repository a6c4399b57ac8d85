// The console bundle's `iconv-lite` (esbuild alias): the service decodes cells with iconv-lite, whose
// code tables are most of a megabyte; every encoding the service detects (UTF-8, UTF-16, Windows-1252
// and the legacy encodings chardet names) is one the browser's TextDecoder already knows.
interface Decoder {
  decode(bytes: Uint8Array): string;
}

const decoders = new Map<string, Decoder>();

function decoderFor(encoding: string): Decoder {
  const name = encoding.toLowerCase();
  let decoder = decoders.get(name);
  if (!decoder) {
    // ignoreBOM: the service decodes a cell with its BOM kept (stripBOM: false) and cellText drops it.
    decoder = new TextDecoder(name, { ignoreBOM: true });
    decoders.set(name, decoder);
  }
  return decoder;
}

/** True when the browser can decode `encoding` (a WHATWG Encoding Standard label). */
export function encodingExists(encoding: string): boolean {
  try {
    decoderFor(encoding);
    return true;
  } catch {
    return false;
  }
}

/** `bytes` as text in `encoding`; invalid sequences read as U+FFFD, as iconv-lite reads them. */
export function decode(bytes: Uint8Array, encoding: string, _options?: { stripBOM?: boolean }): string {
  return decoderFor(encoding).decode(bytes);
}

export default { decode, encodingExists };
