// A PORT for `npm start` in a test: free, and so are the two above it (the local S3, DynamoDB Local).
import { freePort, portIsFree } from '../../local/ports';

export async function freeRuntimePort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 2 > 65535) continue;
    if ((await portIsFree(port + 1, '127.0.0.1')) && (await portIsFree(port + 2, '127.0.0.1'))) return port;
  }
}
