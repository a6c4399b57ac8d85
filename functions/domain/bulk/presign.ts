// Presigned S3 addresses of a job: the upload PUT (signature covers content-type: text/csv, so any
// other type is refused by S3 like an expired URL) and the results GET (named for download).
import { presignGet, presignPut } from '../../store/bucket';
import { attachmentDisposition } from './object-keys';

const uploadContentType = 'text/csv';

export function presignUpload(key: string, expiresInSeconds: number): Promise<string> {
  return presignPut(key, uploadContentType, expiresInSeconds);
}

export function presignDownload(key: string, fileName: string, expiresInSeconds: number): Promise<string> {
  return presignGet(
    key,
    { contentDisposition: attachmentDisposition(fileName), contentType: 'text/csv' },
    expiresInSeconds,
  );
}
