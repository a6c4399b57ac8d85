// Presigned S3 addresses of a job: the upload PUT (signature covers content-type: text/csv, so any
// other type is refused by S3 like an expired URL) and the results GET (named for download).
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { bucketName, presigningS3 } from '../../clients/s3';
import { attachmentDisposition } from './object-keys';

const uploadContentType = 'text/csv';

export function presignUpload(key: string, expiresInSeconds: number): Promise<string> {
  return getSignedUrl(
    presigningS3(),
    new PutObjectCommand({ Bucket: bucketName(), Key: key, ContentType: uploadContentType }),
    {
      expiresIn: expiresInSeconds,
      signableHeaders: new Set(['content-type']),
    },
  );
}

export function presignDownload(key: string, fileName: string, expiresInSeconds: number): Promise<string> {
  return getSignedUrl(
    presigningS3(),
    new GetObjectCommand({
      Bucket: bucketName(),
      Key: key,
      ResponseContentDisposition: attachmentDisposition(fileName),
      ResponseContentType: 'text/csv',
    }),
    { expiresIn: expiresInSeconds },
  );
}
