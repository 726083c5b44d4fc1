import net from 'node:net';

/**
 * A TCP proxy on loopback in front of a real server (PostgreSQL), for outage tests: `cut()` drops
 * every open connection and refuses new ones, as a stopped or restarted server does; `stall()`
 * keeps every connection open and accepts new ones but forwards nothing in either direction (what
 * a frozen server, a paused VM or a silent network looks like from the client: SIGSTOP of the
 * server's processes), until `resume()` delivers what it held; `restore()` lets connections through
 * again after a cut. `loseCommitAnswer(text)` drops the connection that sent `text` (a statement)
 * when PostgreSQL answers its COMMIT, once: the transaction committed, its client never hears so.
 */
export interface TcpProxy {
  readonly port: number;
  /** Open connections through the proxy now. */
  readonly connections: number;
  cut(): void;
  restore(): void;
  stall(): void;
  resume(): void;
  /** Resolves once the COMMIT answer of the transaction that sent `text` was dropped with its connection. */
  loseCommitAnswer(text: string): Promise<void>;
  close(): Promise<void>;
}

const COMMIT_COMPLETE = Buffer.from([0x43, 0, 0, 0, 11, ...Buffer.from('COMMIT'), 0]);

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  /** Bytes held while stalled, per socket they are to be written to, in order. */
  const held = new Map<net.Socket, Buffer[]>();
  let cut = false;
  let stalled = false;
  /** The armed `loseCommitAnswer`: what its statement contains, and the connection that sent it. */
  let losing: { text: string; upstream: net.Socket | null; lost: () => void } | null = null;
  const forward = (from: net.Socket, to: net.Socket, direction: 'up' | 'down'): void => {
    from.on('data', (chunk: Buffer) => {
      if (losing && direction === 'up' && losing.upstream === null && chunk.includes(losing.text))
        losing.upstream = to;
      // The CommandComplete message of a COMMIT: 'C', its length (4 + 7), "COMMIT\0".
      if (losing && direction === 'down' && losing.upstream === from && chunk.includes(COMMIT_COMPLETE)) {
        const { lost } = losing;
        losing = null;
        from.resetAndDestroy();
        to.resetAndDestroy();
        lost();
        return;
      }
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
    forward(client, upstream, 'up');
    forward(upstream, client, 'down');
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
    loseCommitAnswer(text) {
      return new Promise((lost) => {
        losing = { text, upstream: null, lost };
      });
    },
    async close() {
      cutAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
