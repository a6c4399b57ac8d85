// The local S3 front's proxy to s3rver: whatever happens to the exchange with the backend, the client
// gets an answer. A backend that drops the connection after the whole request arrived (what a kept-alive
// socket closed by s3rver at the moment of reuse looks like) once left the client waiting forever: the
// request body's pipeline had already resolved, and its dangling listeners swallowed the error.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { forward } from '../../local/s3/local-s3';

const servers: http.Server[] = [];
const agents: http.Agent[] = [];

afterEach(async () => {
  for (const agent of agents.splice(0)) agent.destroy();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen(server: http.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A front that forwards everything to the backend port, as the local S3 gate does once it allowed a request. */
async function frontFor(backendPort: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true });
  agents.push(agent);
  return listen(http.createServer((req, res) => forward(req, res, backendPort, agent)));
}

function get(port: number, method = 'GET', body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: '/bucket/key' }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (piece: string) => (text += piece));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the local S3 proxy', () => {
  it('answers 503 when the backend drops the connection after the whole request arrived', async () => {
    const backend = http.createServer((req) => {
      req.resume();
      req.on('end', () => setTimeout(() => req.socket.destroy(), 50));
    });
    const front = await frontFor(await listen(backend));
    for (const method of ['GET', 'PUT']) {
      const answer = await get(front, method, method === 'PUT' ? 'a,b\n' : undefined);
      expect(answer.status).toBe(503);
      expect(answer.text).toContain('<Code>ServiceUnavailable</Code>');
    }
  });

  it('answers 503 when the backend is not there', async () => {
    const closed = http.createServer();
    const port = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    servers.splice(servers.indexOf(closed), 1);
    const answer = await get(await frontFor(port));
    expect(answer.status).toBe(503);
  });

  it('passes the backend answer through', async () => {
    const backend = http.createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/csv' }).end('email\nann@example.com\n');
    });
    const answer = await get(await frontFor(await listen(backend)));
    expect(answer).toEqual({ status: 200, text: 'email\nann@example.com\n' });
  });
});
