// Object keys as S3 event notifications carry them: URL-encoded form style (space as `+`), so a key
// must be decoded before it is used with the SDK, and the local S3 encodes the same way AWS does.

/** The key of an S3 event record, decoded: `uploads/my+file%2B1.csv` -> `uploads/my file+1.csv`. */
export function decodeS3Key(key: string): string {
  // `+` first: a literal plus arrives as %2B and must survive as `+`.
  return decodeURIComponent(key.replace(/\+/g, ' '));
}

/**
 * A key encoded the way S3 writes it into event records: `/` kept, space as `+`, every other byte
 * outside A-Z a-z 0-9 `-_.*` percent-encoded (UTF-8). The inverse of decodeS3Key.
 */
export function encodeS3EventKey(key: string): string {
  return encodeURIComponent(key)
    .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+')
    .replace(/%2F/g, '/');
}
