import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// The local HTTP servers that stand in for the GitHub API and the judge's endpoint: on 127.0.0.1, a port the
// system picks, never the network.

/** Starts `server` on 127.0.0.1 and resolves with its base URL. */
export async function listenLocally(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Stops `server`, its open connections too (a hanging test server holds some unanswered). */
export async function stopLocally(server: Server | undefined): Promise<void> {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
}
