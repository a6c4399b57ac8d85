// S3 ObjectCreated on uploads/: each record's job moves to processing (once) and its file is fanned out.
import middy from '@middy/core';
import type { S3Event } from 'aws-lambda';
import { startProcessing } from '../domain/bulk/start-processing';
import { decodeS3Key } from '../domain/s3-keys';
import { logger } from '../log';

async function startProcessingHandler(event: S3Event): Promise<void> {
  const log = logger.child({ function: 'startProcessing' });
  for (const record of event.Records ?? []) {
    // Event keys arrive URL-encoded, space as `+`.
    const key = decodeS3Key(record.s3.object.key);
    await startProcessing({ key, size: record.s3.object.size ?? 0 }, log);
  }
}

export const handler = middy<S3Event, void>().handler(startProcessingHandler);
