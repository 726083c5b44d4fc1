import net from 'node:net';

/**
 * A TCP proxy on loopback in front of a real server (PostgreSQL), for outage tests: `cut()` drops
 * every open connection and refuses new ones, as a stopped or restarted server does; `stall()`
 * keeps every connection open and accepts new ones but forwards nothing in either direction (what
 * a frozen server, a paused VM or a silent network looks like from the client: SIGSTOP of the
 * server's processes), until `resume()` delivers what it held; `restore()` lets connections through
 * again after a cut.
 */
export interface TcpProxy {
  readonly port: number;
  /** Open connections through the proxy now. */
  readonly connections: number;
  cut(): void;
  restore(): void;
  stall(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  /** Bytes held while stalled, per socket they are to be written to, in order. */
  const held = new Map<net.Socket, Buffer[]>();
  let cut = false;
  let stalled = false;
  const forward = (from: net.Socket, to: net.Socket): void => {
    from.on('data', (chunk: Buffer) => {
      if (!stalled) {
        to.write(chunk);
        return;
      }
      const queue = held.get(to) ?? [];
      queue.push(chunk);
      held.set(to, queue);
    });
  };
  const server = net.createServer((client) => {
    if (cut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    open.add(client);
    open.add(upstream);
    const drop = (): void => {
      for (const socket of [client, upstream]) {
        open.delete(socket);
        held.delete(socket);
        socket.destroy();
      }
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    forward(client, upstream);
    forward(upstream, client);
  });
  const cutAll = (): void => {
    cut = true;
    for (const socket of open) socket.resetAndDestroy();
    open.clear();
    held.clear();
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
    stall() {
      stalled = true;
    },
    resume() {
      stalled = false;
      for (const [socket, chunks] of held) for (const chunk of chunks) socket.write(chunk);
      held.clear();
    },
    async close() {
      cutAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
