import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { BSON, type Document } from 'mongodb';

/**
 * A MongoDB wire-protocol STAND-IN, not a MongoDB: no MongoDB server installs on these machines (no apt package, no
 * npm package ships mongod), so the mongo connection test is proven against this instead. It speaks what the official
 * driver (mongodb 7.8.0) needs to connect, sign in and ping:
 * - OP_QUERY (the driver's first handshake) answered with OP_REPLY, OP_MSG for everything after;
 * - `hello`/`isMaster` as a standalone 7.0 server (`saslSupportedMechs` for the configured user), `ping`,
 *   `buildInfo`, `endSessions`; anything else is CommandNotFound;
 * - SCRAM-SHA-256 `saslStart`/`saslContinue` (RFC 5802/7677) for one user in the `admin` database, checking the
 *   client's proof and returning the server signature the driver verifies; a wrong password or user is
 *   AuthenticationFailed (code 18), as mongod answers. The speculative authentication a driver offers in its hello is
 *   declined (not answered), so the driver runs the full conversation.
 * As on a real mongod, `ping`, `hello` and `buildInfo` need no authentication.
 */
export interface MongoWire {
  port: number;
  url: string;
  user: string;
  password: string;
  /** Connections accepted so far. */
  connections(): number;
  /** Successful SCRAM conversations so far. */
  authentications(): number;
  close(): Promise<void>;
}

const OP_REPLY = 1;
const OP_QUERY = 2004;
const OP_MSG = 2013;
const ITERATIONS = 4096;

interface Conversation {
  clientFirstBare: string;
  serverFirst: string;
  nonce: string;
  user: string;
  db: string;
}

export async function startMongoWire(opts: { user?: string; password?: string } = {}): Promise<MongoWire> {
  const user = opts.user ?? 'checker';
  const password = opts.password ?? 'mongo-S3cret!';
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password, salt, ITERATIONS, 32, 'sha256'); // SASLprep is the identity on this ASCII password
  const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest();
  const clientKey = hmac(salted, 'Client Key');
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = hmac(salted, 'Server Key');
  let accepted = 0;
  let authenticated = 0;
  let connectionId = 0;
  const sockets = new Set<Socket>();

  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    const id = ++connectionId;
    const conversations = new Map<number, Conversation>();
    let nextConversation = 1;
    let pending = Buffer.alloc(0);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));

    const command = (doc: Document): Document => {
      const name = Object.keys(doc)[0] ?? '';
      const db = typeof doc.$db === 'string' ? doc.$db : 'admin';
      switch (name.toLowerCase()) {
        case 'hello':
        case 'ismaster':
          return {
            helloOk: true, ismaster: true, isWritablePrimary: true,
            maxBsonObjectSize: 16 * 1024 * 1024, maxMessageSizeBytes: 48_000_000, maxWriteBatchSize: 100_000,
            localTime: new Date(), logicalSessionTimeoutMinutes: 30, connectionId: id,
            minWireVersion: 0, maxWireVersion: 21, readOnly: false,
            ...(doc.saslSupportedMechs === `admin.${user}` && { saslSupportedMechs: ['SCRAM-SHA-256'] }),
            ok: 1,
          };
        case 'ping':
        case 'endsessions':
          return { ok: 1 };
        case 'buildinfo':
          return { version: '7.0.0', versionArray: [7, 0, 0, 0], gitVersion: 'stand-in', ok: 1 };
        case 'saslstart': {
          if (doc.mechanism !== 'SCRAM-SHA-256') return authFailed();
          const first = payloadText(doc.payload);
          const m = /^n,,(n=([^,]*),r=([^,]+).*)$/.exec(first);
          if (!m) return authFailed();
          const nonce = m[3] + randomBytes(18).toString('base64');
          const serverFirst = `r=${nonce},s=${salt.toString('base64')},i=${ITERATIONS}`;
          const cid = nextConversation++;
          conversations.set(cid, { clientFirstBare: m[1], serverFirst, nonce, user: m[2].replace(/=2C/g, ',').replace(/=3D/g, '='), db });
          return { conversationId: cid, done: false, payload: new BSON.Binary(Buffer.from(serverFirst)), ok: 1 };
        }
        case 'saslcontinue': {
          const conv = conversations.get(Number(doc.conversationId));
          conversations.delete(Number(doc.conversationId));
          if (!conv) return authFailed();
          const final = payloadText(doc.payload);
          const m = /^(c=biws,r=([^,]+)),p=([^,]+)$/.exec(final);
          if (!m || m[2] !== conv.nonce || conv.user !== user || conv.db !== 'admin') return authFailed();
          const authMessage = `${conv.clientFirstBare},${conv.serverFirst},${m[1]}`;
          const proof = Buffer.from(m[3], 'base64');
          const signature = hmac(storedKey, authMessage);
          if (proof.length !== signature.length) return authFailed();
          const presentedKey = Buffer.from(proof.map((b, i) => b ^ signature[i]));
          if (!timingSafeEqual(createHash('sha256').update(presentedKey).digest(), storedKey)) return authFailed();
          authenticated++;
          const v = hmac(serverKey, authMessage).toString('base64');
          return { conversationId: Number(doc.conversationId), done: true, payload: new BSON.Binary(Buffer.from(`v=${v}`)), ok: 1 };
        }
        default:
          return { ok: 0, errmsg: `no such command: '${name}'`, code: 59, codeName: 'CommandNotFound' };
      }
    };

    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 16 && pending.length >= pending.readInt32LE(0)) {
        const length = pending.readInt32LE(0);
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        const requestId = message.readInt32LE(4);
        const opCode = message.readInt32LE(12);
        if (opCode === OP_QUERY) {
          // flags, fullCollectionName (cstring), numberToSkip, numberToReturn, query
          const nameEnd = message.indexOf(0, 20);
          const query = BSON.deserialize(message.subarray(nameEnd + 9));
          socket.write(reply(requestId, command(query)));
        } else if (opCode === OP_MSG) {
          // flagBits, then sections; the driver sends the command as the kind-0 section
          let body: Document | undefined;
          const end = (message.readUInt32LE(16) & 1) !== 0 ? length - 4 : length; // a CRC-32C may close the message
          for (let at = 20; at < end; ) {
            const kind = message[at];
            const size = message.readInt32LE(at + 1);
            if (kind === 0) body = BSON.deserialize(message.subarray(at + 1, at + 1 + size));
            at += 1 + size;
          }
          socket.write(msg(requestId, body ? command(body) : { ok: 0, errmsg: 'no command', code: 9, codeName: 'FailedToParse' }));
        } else {
          socket.destroy();
        }
      }
    });
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
  return {
    port,
    url: `mongodb://127.0.0.1:${port}`,
    user,
    password,
    connections: () => accepted,
    authentications: () => authenticated,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const authFailed = (): Document => ({ ok: 0, errmsg: 'Authentication failed.', code: 18, codeName: 'AuthenticationFailed' });

function payloadText(p: unknown): string {
  if (p instanceof BSON.Binary) return Buffer.from(p.buffer.subarray(0, p.position)).toString('utf8');
  if (p instanceof Uint8Array) return Buffer.from(p).toString('utf8');
  return '';
}

let nextResponseId = 1;

function header(length: number, responseTo: number, opCode: number): Buffer {
  const h = Buffer.alloc(16);
  h.writeInt32LE(length, 0);
  h.writeInt32LE(nextResponseId++, 4);
  h.writeInt32LE(responseTo, 8);
  h.writeInt32LE(opCode, 12);
  return h;
}

function reply(responseTo: number, doc: Document): Buffer {
  const body = BSON.serialize(doc);
  const fields = Buffer.alloc(20); // responseFlags, cursorID (int64), startingFrom, numberReturned
  fields.writeInt32LE(1, 16);
  return Buffer.concat([header(16 + 20 + body.length, responseTo, OP_REPLY), fields, body]);
}

function msg(responseTo: number, doc: Document): Buffer {
  const body = BSON.serialize(doc);
  const flags = Buffer.alloc(5); // flagBits 0, section kind 0
  return Buffer.concat([header(16 + 5 + body.length, responseTo, OP_MSG), flags, body]);
}
