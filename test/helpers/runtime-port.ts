// A PORT for `npm start` in a test: free, and so are the two above it (the local S3, DynamoDB Local).
import { readFileSync } from 'node:fs';
import { freePort, portIsFree } from '../../local/ports';

/**
 * The lowest port the system hands out on its own (an outgoing connection's local port, a listen on
 * port 0). A test that restarts a runtime on the same PORT leaves its three ports free for seconds: in
 * that range any connection of a test running beside it could take one of them meanwhile.
 */
function ephemeralLow(): number | undefined {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 12_000 ? low : undefined;
  } catch {
    return undefined;
  }
}

/** Three free ports from PORT up, below the ephemeral range where Linux tells it. */
export async function freeRuntimePort(): Promise<number> {
  const low = ephemeralLow();
  for (;;) {
    // 10000 and up: clear of the well-known ports services on a CI machine listen on.
    const port = low ? 10_000 + Math.floor(Math.random() * (low - 10_003)) : await freePort();
    if (port + 2 > 65535) continue;
    const free = await Promise.all([port, port + 1, port + 2].map((p) => portIsFree(p, '127.0.0.1')));
    if (free.every(Boolean)) return port;
  }
}
