import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import { resolveCredential, revokeCredentials, storeCredential } from '../credentials/credentials.service.ts';
import { lockScope } from '../db/advisory-lock.ts';
import type { Database } from '../db/tables.ts';
import type { Clock } from '../lib/clock.ts';
import { hmacSha256, randomBase62, safeEqual } from '../lib/crypto.ts';
import type { Keyring } from '../lib/keyring.ts';
import { enqueueMail, MAIL_LOOP, type QueuedMail } from '../mail/outbox.ts';
import type { WorkerSignals } from '../workers/runner.ts';
import {
  countCodesSince,
  deleteCodesOf,
  insertCode,
  insertSession,
  sessionIdsOf,
  spendCodeAttempt,
  updateSession,
  useCode,
  voidPendingCodes,
  type CodeOwner,
  type SignInTables,
} from './sign-in.repository.ts';

/**
 * Passwordless sign-in, once for every kind of user (decision `one-sign-in`): 6-digit codes kept
 * as HMACs, bound to the client that asked, limited per client, guessed at most MAX_CODE_ATTEMPTS
 * times; sessions behind opaque tokens that slide within an absolute lifetime. Staff and customers
 * each describe their own tables and wording in a `SignInKind`.
 */

export { signInTables, type CodeOwner, type SignInTables } from './sign-in.repository.ts';

type CredentialKind = Parameters<typeof storeCredential>[1]['kind'];

/** One kind of user that signs in with codes, on its own tables. */
export interface SignInKind {
  tables: SignInTables;
  /** The advisory lock that serialises code requests for one owner. */
  lock: string;
  /** What the HMACs of a code and of a client start with (a kind's hashes never match another's). */
  codeHashPrefix: string;
  clientHashPrefix: string;
  /** The credential its session tokens are stored as, and the tokens' prefix. */
  credential: CredentialKind;
  tokenPrefix: string;
}

export const SIGN_IN_CODE_TTL_MS = 10 * 60 * 1000;
export const MAX_CODE_ATTEMPTS = 5;
/** At most this many codes per owner and client per hour (the rest are silently not sent). */
export const CODES_PER_CLIENT_PER_HOUR = 5;
/** Codes per owner and hour beyond which each client gets only its guaranteed share. */
export const CODES_PER_OWNER_PER_HOUR = 20;
/** Codes per owner, client and hour that no other client's requests can take away. */
export const GUARANTEED_CODES_PER_CLIENT = 2;

/**
 * Whether a client may have one more code for an owner (issue #26). Limits are per client so that
 * nobody can lock anyone out: up to GUARANTEED_CODES_PER_CLIENT codes an hour, whatever other
 * clients do, and up to CODES_PER_CLIENT_PER_HOUR while the owner has had fewer than
 * CODES_PER_OWNER_PER_HOUR in all. Mail to an owner is bounded by 20 an hour plus 2 per client
 * beyond, and the guesses a client can make at the owner's codes by 5 per code.
 */
export function mayIssueCode(recent: { member: number; client: number }): boolean {
  if (recent.client < GUARANTEED_CODES_PER_CLIENT) return true;
  return recent.client < CODES_PER_CLIENT_PER_HOUR && recent.member < CODES_PER_OWNER_PER_HOUR;
}

export const WRONG_CODE = 'The code is wrong or has expired. Request a new code and try again.';
/** Compared against when there is no code, so a miss costs what a wrong guess costs. */
const NO_CODE = '0'.repeat(64);

export interface CodeDeps {
  db: Kysely<Database>;
  clock: Clock;
  /** Seals the mail carrying the code (decision `sealed-secrets`). */
  keyring: Keyring;
  /** Keys the HMACs of codes and clients (a 6-digit code is too small for a plain hash). */
  signInCodeKey: Buffer;
  /** Wakes this process's mail loop once a code is queued. */
  signals: WorkerSignals;
}

/** Whom a code is for and which client asks: the client as an HMAC of the owner and its address bucket. */
export function codeOwner(
  key: Buffer,
  kind: SignInKind,
  who: { storeId: string; owner: string; client: string },
): CodeOwner {
  const clientHash = hmacSha256(key, `${kind.clientHashPrefix}${who.owner}:${who.client}`).toString('hex');
  return { storeId: who.storeId, owner: who.owner, clientHash };
}

const hashCode = (key: Buffer, kind: SignInKind, owner: string, code: string): string =>
  hmacSha256(key, `${kind.codeHashPrefix}${owner}:${code}`).toString('hex');

/**
 * Issues a code: a fresh 6-digit code is stored as an HMAC and its mail (`mail(code)`) sealed in
 * the outbox, in one transaction. The code belongs to the client that asked: it replaces that
 * client's earlier code only, and only that client can use it, so requests and guesses from
 * elsewhere never void or use up an owner's code (issue #26); `mayIssueCode` bounds the mail.
 */
export async function issueCode(
  deps: CodeDeps,
  kind: SignInKind,
  owner: CodeOwner,
  mail: (code: string) => QueuedMail,
): Promise<void> {
  const now = deps.clock.now();
  const queued = await deps.db.transaction().execute(async (trx) => {
    // Serialise concurrent requests for one owner, then apply the limits.
    await lockScope(trx, kind.lock, `${owner.storeId}:${owner.owner}`);
    const recent = await countCodesSince(trx, kind.tables, owner, new Date(now.getTime() - 3600_000));
    if (!mayIssueCode(recent)) return false;
    await voidPendingCodes(trx, kind.tables, owner, now);
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await insertCode(trx, kind.tables, {
      ...owner,
      hash: hashCode(deps.signInCodeKey, kind, owner.owner, code),
      expiresAt: new Date(now.getTime() + SIGN_IN_CODE_TTL_MS),
      now,
    });
    await enqueueMail(trx, mail(code), deps.keyring);
    return true;
  });
  if (queued) deps.signals.wake(MAIL_LOOP);
}

/**
 * Checks a guess from the client that asked for the code: the guess first spends one of the
 * code's attempts and only then sees its hash (one conditional UPDATE), so at most
 * MAX_CODE_ATTEMPTS guesses are ever compared with a code, however many arrive at once. An owner
 * without a code goes through the same query, hash and comparison (matching nothing), so timing
 * tells nothing. Returns the code's id to `redeemCode`, or null.
 */
export async function checkCode(
  deps: Pick<CodeDeps, 'db' | 'signInCodeKey'>,
  kind: SignInKind,
  owner: CodeOwner,
  code: string,
  now: Date,
): Promise<string | null> {
  const pending = await spendCodeAttempt(deps.db, kind.tables, owner, now, MAX_CODE_ATTEMPTS);
  const matches = safeEqual(
    pending?.code_hash ?? NO_CODE,
    hashCode(deps.signInCodeKey, kind, owner.owner, code),
  );
  return pending && matches ? pending.id : null;
}

/** Uses a checked code (a second conditional UPDATE): true when this call used it, so it works once. */
export function redeemCode(
  db: Kysely<Database>,
  kind: SignInKind,
  storeId: string,
  codeId: string,
  now: Date,
): Promise<boolean> {
  return useCode(db, kind.tables, storeId, codeId, now);
}

/** Forgets every code of an owner (an erased customer's). */
export function forgetCodesOf(db: Kysely<Database>, kind: SignInKind, storeId: string, owner: string) {
  return deleteCodesOf(db, kind.tables, storeId, owner);
}

// Sessions

/** How long sessions live: a session slides by `ttlMs` on use, within `maxAgeMs` of its sign-in. */
export interface SessionLifetime {
  ttlMs: number;
  maxAgeMs: number;
}

/**
 * Opens a session (in the caller's transaction): an opaque token of the kind's prefix whose
 * SHA-256 is the only thing stored, in the global credentials table.
 */
export async function openSession(
  db: Kysely<Database>,
  kind: SignInKind,
  lifetime: SessionLifetime,
  session: { storeId: string; owner: string; now: Date },
): Promise<{ token: string; expiresAt: Date }> {
  const token = `${kind.tokenPrefix}${randomBase62(40)}`;
  const { storeId, now } = session;
  const expiresAt = new Date(now.getTime() + Math.min(lifetime.ttlMs, lifetime.maxAgeMs));
  const sessionId = await insertSession(db, kind.tables, { ...session, expiresAt });
  await storeCredential({ db }, { secret: token, kind: kind.credential, storeId, subjectId: sessionId });
  return { token, expiresAt };
}

/** Ends a session (in the caller's transaction): marked revoked, its credential deleted. */
export async function revokeSession(
  db: Kysely<Database>,
  kind: SignInKind,
  storeId: string,
  sessionId: string,
  now: Date,
): Promise<void> {
  await updateSession(db, kind.tables, storeId, sessionId, { revoked_at: now });
  await revokeCredentials({ db }, storeId, sessionId, kind.credential);
}

/** Deletes the credentials of every session of an owner (in the caller's transaction). */
export async function revokeCredentialsOf(
  db: Kysely<Database>,
  kind: SignInKind,
  storeId: string,
  owner: string,
): Promise<void> {
  for (const sessionId of await sessionIdsOf(db, kind.tables, storeId, owner)) {
    await revokeCredentials({ db }, storeId, sessionId, kind.credential);
  }
}

/** A session as the owner's live-session lookup returns it (with whatever it joins). */
export interface LiveSession {
  store_id: string;
  session_id: string;
  expires_at: Date;
  last_used_at: Date;
  created_at: Date;
}

export interface SessionAuthDeps {
  db: Kysely<Database>;
  clock: Clock;
  sessions: SessionLifetime;
}

/** A session's expiry slides forward at most this often (saves a write on every request). */
const SLIDE_EVERY_MS = 60_000;

/** The shape of a kind's tokens: its prefix and 40 base-62 characters. */
export const tokenPattern = (kind: SignInKind): RegExp => new RegExp(`^${kind.tokenPrefix}[0-9A-Za-z]{40}$`);

/**
 * The one authentication of session tokens, for each kind's hook: the token's SHA-256 is looked
 * up (never the token), the session must be live (`findLive`: not revoked, not expired, created
 * after `createdAfter`) and, when `storeOf` names one, of that store; its expiry slides forward by
 * the TTL on use, never past the absolute lifetime from sign-in (decisions `staff-sessions` and `customer-sessions`), so a stolen token does
 * not live forever. Anything else is `invalid()`, one answer for every way a token fails.
 */
export function sessionAuthenticator<Row extends LiveSession>(
  kind: SignInKind,
  options: {
    invalid: () => Error;
    findLive: (
      db: Kysely<Database>,
      storeId: string,
      sessionId: string,
      now: Date,
      createdAfter: Date,
    ) => Promise<Row | undefined>;
  },
) {
  const pattern = tokenPattern(kind);
  return async function authenticate(
    deps: SessionAuthDeps,
    token: string,
    storeOf?: () => string,
  ): Promise<{ session: Row; expiresAt: Date }> {
    if (!pattern.test(token)) throw options.invalid();
    const storeId = storeOf?.();
    const credential = await resolveCredential(deps, token, kind.credential);
    // A token of one store is worthless in another: the same answer as an unknown token.
    if (!credential || (storeId !== undefined && credential.storeId !== storeId)) throw options.invalid();
    const now = deps.clock.now();
    const createdAfter = new Date(now.getTime() - deps.sessions.maxAgeMs);
    const session = await options.findLive(
      deps.db,
      credential.storeId,
      credential.subjectId,
      now,
      createdAfter,
    );
    if (!session) throw options.invalid();
    let expiresAt = session.expires_at;
    if (now.getTime() - session.last_used_at.getTime() >= SLIDE_EVERY_MS) {
      expiresAt = new Date(
        Math.min(now.getTime() + deps.sessions.ttlMs, session.created_at.getTime() + deps.sessions.maxAgeMs),
      );
      await updateSession(deps.db, kind.tables, session.store_id, session.session_id, {
        expires_at: expiresAt,
        last_used_at: now,
      });
    }
    return { session, expiresAt };
  };
}
