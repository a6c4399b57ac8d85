// The local runtime's emulators are reachable from this machine only, and its S3 keeps its port (so an
// upload URL handed out before a restart still works after it).
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startLocalRuntime } from '../../local/runtime';

jest.setTimeout(180_000);

/** This machine's addresses other than loopback (a container has at least one). */
function externalAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((a): a is os.NetworkInterfaceInfo => a !== undefined && !a.internal && a.family === 'IPv4')
    .map((a) => a.address);
}

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

describe('the local runtime on one machine', () => {
  it('listens on 127.0.0.1 only (DynamoDB Local, S3, SQS) and keeps the S3 port across a restart', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mailvet-hardening-'));
    try {
      const first = await startLocalRuntime({ port: 0, dataDir, env: { LOG_LEVEL: 'warn' } });
      let s3Url: string;
      try {
        const ports = Object.values(first.endpoints).map((url) => Number(new URL(url).port));
        for (const port of ports) expect(await connects('127.0.0.1', port)).toBe(true);
        const external = externalAddresses();
        expect(external.length).toBeGreaterThan(0);
        for (const address of external)
          for (const port of ports)
            expect({ address, port, open: await connects(address, port) }).toMatchObject({ open: false });
        s3Url = first.endpoints.s3;
      } finally {
        await first.stop();
      }
      const second = await startLocalRuntime({ port: 0, dataDir, env: { LOG_LEVEL: 'warn' } });
      try {
        expect(second.endpoints.s3).toBe(s3Url);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
