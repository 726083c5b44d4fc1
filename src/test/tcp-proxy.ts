import net from 'node:net';

/**
 * A TCP proxy on loopback in front of a real server (PostgreSQL), for outage tests: `cut()` drops
 * every open connection and refuses new ones, as a stopped or restarted server does; `restore()`
 * lets connections through again.
 */
export interface TcpProxy {
  readonly port: number;
  /** Open connections through the proxy now. */
  readonly connections: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((client) => {
    if (cut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    open.add(client);
    open.add(upstream);
    const drop = (): void => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const cutAll = (): void => {
    cut = true;
    for (const socket of open) socket.resetAndDestroy();
    open.clear();
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get connections() {
      return open.size / 2;
    },
    cut: cutAll,
    restore() {
      cut = false;
    },
    async close() {
      cutAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
