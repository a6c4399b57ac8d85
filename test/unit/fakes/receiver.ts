// A loopback endpoint that records the webhooks a fake sends and answers with a chosen status.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Receiver {
  url: string;
  received: Array<{ headers: IncomingHttpHeaders; body: string }>;
  /** The status every request gets (200 unless a test changes it). */
  status: number;
  stop(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', received: [], status: 200, stop: async () => undefined };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      receiver.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      // A 3xx points back at this receiver, so a sender that follows redirects is seen twice.
      const redirect = receiver.status >= 300 && receiver.status < 400;
      res.writeHead(receiver.status, redirect ? { location: `${receiver.url}?followed=1` } : {}).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver;
}
