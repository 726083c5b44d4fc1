/**
 * A small authoritative DNS server for tests (RFC 1035 over UDP and TCP on loopback). It answers
 * CNAME, MX and TXT queries for the names a test publishes, follows CNAMEs for other types the way
 * a recursive resolver would, answers NXDOMAIN for unknown names and NODATA for known names without
 * the asked type, and can be told to stay silent for a name (a timeout, as from an unreachable
 * server). The verifier talks to it through `node:dns` exactly as it talks to a real resolver.
 */
import dgram from 'node:dgram';
import net from 'node:net';

const TYPE = { CNAME: 5, MX: 15, TXT: 16, OPT: 41 } as const;
const CLASS_IN = 1;
const NOERROR = 0;
const FORMERR = 1;
const NXDOMAIN = 3;
const NOTIMP = 4;
/** Answers larger than this go out truncated over UDP when the query offered no bigger buffer. */
const CLASSIC_UDP_LIMIT = 512;

interface Mx {
  exchange: string;
  priority: number;
}

interface Question {
  name: string;
  type: number;
  /** Byte offset just after the question section. */
  end: number;
  /** Receive buffer size from an EDNS OPT record, if the query had one. */
  udpSize: number;
}

const normalize = (name: string): string => name.toLowerCase().replace(/\.$/, '');

function encodeName(name: string): Buffer {
  const labels = normalize(name).split('.').filter(Boolean);
  return Buffer.concat([
    ...labels.map((label) => {
      const bytes = Buffer.from(label, 'ascii');
      return Buffer.concat([Buffer.from([bytes.length]), bytes]);
    }),
    Buffer.from([0]),
  ]);
}

/** Reads a (possibly compressed) name; returns it and the offset after it. */
function readName(message: Buffer, offset: number): { name: string; end: number } | null {
  const labels: string[] = [];
  let position = offset;
  let end = -1;
  for (let jumps = 0; jumps < 20;) {
    if (position >= message.length) return null;
    const length = message[position]!;
    if (length === 0) {
      return { name: labels.join('.'), end: end === -1 ? position + 1 : end };
    }
    if ((length & 0xc0) === 0xc0) {
      if (position + 1 >= message.length) return null;
      if (end === -1) end = position + 2;
      position = ((length & 0x3f) << 8) | message[position + 1]!;
      jumps++;
      continue;
    }
    if (position + 1 + length > message.length) return null;
    labels.push(message.subarray(position + 1, position + 1 + length).toString('ascii'));
    position += 1 + length;
  }
  return null;
}

function parseQuestion(message: Buffer): Question | null {
  if (message.length < 12 || message.readUInt16BE(4) !== 1) return null;
  const name = readName(message, 12);
  if (!name || name.end + 4 > message.length) return null;
  const type = message.readUInt16BE(name.end);
  let end = name.end + 4;
  let udpSize = CLASSIC_UDP_LIMIT;
  // Additional records: look for an EDNS OPT record (its class is the sender's UDP buffer size).
  const skipCount = message.readUInt16BE(6) + message.readUInt16BE(8);
  const additional = message.readUInt16BE(10);
  let position = end;
  for (let i = 0; i < skipCount + additional; i++) {
    const rr = readName(message, position);
    if (!rr || rr.end + 10 > message.length) break;
    const rrType = message.readUInt16BE(rr.end);
    const rrClass = message.readUInt16BE(rr.end + 2);
    const rdLength = message.readUInt16BE(rr.end + 8);
    if (i >= skipCount && rrType === TYPE.OPT) udpSize = Math.max(CLASSIC_UDP_LIMIT, rrClass);
    position = rr.end + 10 + rdLength;
  }
  end = Math.min(end, message.length);
  return { name: normalize(name.name), type, end, udpSize };
}

function resourceRecord(name: string, type: number, data: Buffer): Buffer {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(type, 0);
  fixed.writeUInt16BE(CLASS_IN, 2);
  fixed.writeUInt32BE(0, 4); // TTL 0: nothing is cached between checks
  fixed.writeUInt16BE(data.length, 8);
  return Buffer.concat([encodeName(name), fixed, data]);
}

function txtData(strings: readonly string[]): Buffer {
  return Buffer.concat(
    strings.map((text) => {
      const bytes = Buffer.from(text, 'utf8');
      if (bytes.length > 255) throw new Error('a TXT character-string holds at most 255 bytes');
      return Buffer.concat([Buffer.from([bytes.length]), bytes]);
    }),
  );
}

/** Splits a long TXT value into 255-byte character-strings, as zone files and DNS hosts do. */
export function txtStrings(value: string): string[] {
  const parts: string[] = [];
  for (let i = 0; i < value.length; i += 255) parts.push(value.slice(i, i + 255));
  return parts.length > 0 ? parts : [''];
}

export class TestDnsServer {
  readonly #udp: dgram.Socket;
  readonly #tcp: net.Server;
  readonly #port: number;
  readonly #cname = new Map<string, string>();
  readonly #mx = new Map<string, Mx[]>();
  readonly #txt = new Map<string, string[][]>();
  readonly #silent = new Set<string>();
  /** Every question received, as `TYPE name`, for assertions on what the verifier asked. */
  readonly queries: string[] = [];

  private constructor(udp: dgram.Socket, tcp: net.Server, port: number) {
    this.#udp = udp;
    this.#tcp = tcp;
    this.#port = port;
  }

  /** Starts the server on 127.0.0.1 on a free port (the same port for UDP and TCP). */
  static async start(): Promise<TestDnsServer> {
    for (let attempt = 0; ; attempt++) {
      const udp = dgram.createSocket('udp4');
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject);
        udp.bind(0, '127.0.0.1', () => resolve());
      });
      const port = udp.address().port;
      const tcp = net.createServer();
      try {
        await new Promise<void>((resolve, reject) => {
          tcp.once('error', reject);
          tcp.listen(port, '127.0.0.1', () => resolve());
        });
      } catch (error) {
        udp.close();
        if (attempt < 10) continue;
        throw error;
      }
      const server = new TestDnsServer(udp, tcp, port);
      server.#listen();
      return server;
    }
  }

  /** `127.0.0.1:<port>`, the form DNS_SERVERS and `Resolver.setServers` take. */
  get address(): string {
    return `127.0.0.1:${this.#port}`;
  }

  setCname(name: string, target: string): void {
    this.#cname.set(normalize(name), normalize(target));
  }

  setMx(name: string, records: Mx[]): void {
    this.#mx.set(
      normalize(name),
      records.map((r) => ({ ...r, exchange: normalize(r.exchange) })),
    );
  }

  /** Sets the TXT records of a name; each record is one value (split into 255-byte strings). */
  setTxt(name: string, values: string[]): void {
    this.#txt.set(normalize(name), values.map(txtStrings));
  }

  /** Removes records of a name: of one type, or all of them. */
  remove(name: string, type?: 'CNAME' | 'MX' | 'TXT'): void {
    const key = normalize(name);
    if (type === undefined || type === 'CNAME') this.#cname.delete(key);
    if (type === undefined || type === 'MX') this.#mx.delete(key);
    if (type === undefined || type === 'TXT') this.#txt.delete(key);
  }

  /** Publishes records in the shape the Admin API returns them. */
  publish(records: readonly { type: string; name: string; value: string; priority?: number }[]): void {
    for (const record of records) {
      if (record.type === 'CNAME') this.setCname(record.name, record.value);
      else if (record.type === 'MX') {
        const others = (this.#mx.get(normalize(record.name)) ?? []).filter(
          (mx) => mx.exchange !== normalize(record.value),
        );
        this.setMx(record.name, [...others, { exchange: record.value, priority: record.priority ?? 10 }]);
      } else if (record.type === 'TXT') {
        const existing = this.#txt.get(normalize(record.name)) ?? [];
        this.#txt.set(normalize(record.name), [...existing, txtStrings(record.value)]);
      } else throw new Error(`cannot publish a ${record.type} record`);
    }
  }

  /** Stops answering questions about `name` (the resolver times out), until `speak`. */
  silence(name: string): void {
    this.#silent.add(normalize(name));
  }

  speak(name: string): void {
    this.#silent.delete(normalize(name));
  }

  async close(): Promise<void> {
    await Promise.all([
      new Promise<void>((resolve) => this.#udp.close(() => resolve())),
      new Promise<void>((resolve) => this.#tcp.close(() => resolve())),
    ]);
  }

  #listen(): void {
    this.#udp.on('message', (message, remote) => {
      const answer = this.#answer(message, 'udp');
      if (answer) this.#udp.send(answer, remote.port, remote.address);
    });
    this.#tcp.on('connection', (socket) => {
      let buffered = Buffer.alloc(0);
      socket.on('error', () => socket.destroy());
      socket.on('data', (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
          const message = buffered.subarray(2, 2 + buffered.readUInt16BE(0));
          buffered = buffered.subarray(2 + message.length);
          const answer = this.#answer(message, 'tcp');
          if (answer) {
            const length = Buffer.alloc(2);
            length.writeUInt16BE(answer.length);
            socket.write(Buffer.concat([length, answer]));
          }
        }
      });
    });
  }

  #answer(message: Buffer, transport: 'udp' | 'tcp'): Buffer | null {
    if (message.length < 12) return null;
    const question = parseQuestion(message);
    const header = Buffer.alloc(12);
    header.writeUInt16BE(message.readUInt16BE(0), 0);
    const opcode = (message[2]! >> 3) & 0x0f;
    const recursionDesired = message[2]! & 0x01;
    const reply = (rcode: number, answers: Buffer[], truncated = false): Buffer => {
      header[2] = 0x80 | (opcode << 3) | 0x04 | (truncated ? 0x02 : 0) | recursionDesired; // QR, AA
      header[3] = 0x80 | rcode; // RA
      header.writeUInt16BE(question ? 1 : 0, 4);
      header.writeUInt16BE(answers.length, 6);
      header.writeUInt16BE(0, 8);
      header.writeUInt16BE(0, 10);
      const questionBytes = question ? message.subarray(12, question.end) : Buffer.alloc(0);
      return Buffer.concat([header, questionBytes, ...answers]);
    };
    if (!question) return reply(FORMERR, []);
    this.queries.push(`${typeName(question.type)} ${question.name}`);
    if (this.#silent.has(question.name)) return null;
    if (opcode !== 0) return reply(NOTIMP, []);

    const answers: Buffer[] = [];
    let name = question.name;
    let exists = false;
    for (let depth = 0; depth < 8; depth++) {
      const cname = this.#cname.get(name);
      const records = this.#recordsOf(name, question.type);
      if (records.length > 0 || this.#known(name)) exists = true;
      if (records.length > 0) {
        answers.push(...records);
        break;
      }
      if (cname === undefined || question.type === TYPE.CNAME) break;
      answers.push(resourceRecord(name, TYPE.CNAME, encodeName(cname)));
      name = cname;
    }
    const full = reply(exists || answers.length > 0 ? NOERROR : NXDOMAIN, answers);
    if (transport === 'udp' && full.length > question.udpSize) return reply(NOERROR, [], true);
    return full;
  }

  #known(name: string): boolean {
    return this.#cname.has(name) || this.#mx.has(name) || this.#txt.has(name);
  }

  #recordsOf(name: string, type: number): Buffer[] {
    switch (type) {
      case TYPE.CNAME: {
        const target = this.#cname.get(name);
        return target === undefined ? [] : [resourceRecord(name, TYPE.CNAME, encodeName(target))];
      }
      case TYPE.MX:
        return (this.#mx.get(name) ?? []).map((mx) => {
          const priority = Buffer.alloc(2);
          priority.writeUInt16BE(mx.priority);
          return resourceRecord(name, TYPE.MX, Buffer.concat([priority, encodeName(mx.exchange)]));
        });
      case TYPE.TXT:
        return (this.#txt.get(name) ?? []).map((strings) => resourceRecord(name, TYPE.TXT, txtData(strings)));
      default:
        return [];
    }
  }
}

function typeName(type: number): string {
  const entry = Object.entries(TYPE).find(([, value]) => value === type);
  return entry ? entry[0] : String(type);
}
