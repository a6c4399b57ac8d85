// Port helpers for the local runtime: an ephemeral free port, and a clear message when one is taken.
import net from 'node:net';

/** A port that was free a moment ago (for children that cannot listen on port 0 themselves). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly what: string,
  ) {
    super(
      `Port ${port} is already in use (${what}). Stop the other process or choose another port, e.g. PORT=3001 npm start.`,
    );
    this.name = 'PortInUseError';
  }
}

/** Listens, turning EADDRINUSE into a PortInUseError with a readable message. */
export function listen(server: net.Server, port: number, host: string, what: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port, what) : error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}
