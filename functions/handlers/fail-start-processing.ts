// startProcessing's on-failure destination (Lambda async invocation): the S3 event whose processing
// kept failing arrives as `requestPayload`; each of its uploads' jobs is failed with a reason.
import middy from '@middy/core';
import { z } from 'zod';
import { failUnstartedJob } from '../domain/bulk/start-processing';
import { decodeS3Key } from '../domain/s3-keys';
import { logger } from '../log';

/** The part of Lambda's destination record this function reads. */
const destinationRecord = z.object({
  requestContext: z.object({ condition: z.string().optional() }).optional(),
  requestPayload: z.object({
    Records: z.array(z.object({ s3: z.object({ object: z.object({ key: z.string() }) }) })),
  }),
  responsePayload: z.unknown().optional(),
});

async function failStartProcessingHandler(event: unknown): Promise<void> {
  const log = logger.child({ function: 'failStartProcessing' });
  const parsed = destinationRecord.safeParse(event);
  if (!parsed.success) return log.error('not an on-failure destination record; ignored', parsed.error);
  log.warn('startProcessing gave up', {
    condition: parsed.data.requestContext?.condition,
    response: parsed.data.responsePayload,
  });
  for (const record of parsed.data.requestPayload.Records)
    await failUnstartedJob({ key: decodeS3Key(record.s3.object.key) }, log);
}

export const handler = middy<unknown, void>().handler(failStartProcessingHandler);
