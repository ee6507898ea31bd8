// The Lua scripts, each prefixed with common.lua, run by SHA with a fallback to the source
// (after a Redis restart or SCRIPT FLUSH the cache is empty).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { RedisClient } from './client.ts';

const common = readFileSync(new URL('./common.lua', import.meta.url), 'utf8');

interface Script {
  source: string;
  sha: string;
  /** The same script with the audit log off (an internal switch for the bench). */
  quiet: { source: string; sha: string };
}

function script(name: string): Script {
  const body = `${common}\n${readFileSync(new URL(`./${name}.lua`, import.meta.url), 'utf8')}`;
  const variant = (on: boolean) => {
    const source = `local AUDIT_ON = ${on}\n${body}`;
    return { source, sha: createHash('sha1').update(source).digest('hex') };
  };
  return { ...variant(true), quiet: variant(false) };
}

const SCRIPTS = {
  create: script('create'),
  claim: script('claim'),
  vote: script('vote'),
  consume: script('consume'),
  report: script('report'),
  expire: script('expire'),
  escalate: script('escalate'),
  escalationRecord: script('escalation-record'),
  indexBackfill: script('index-backfill'),
  list: script('list'),
  statuses: script('statuses'),
  prune: script('prune'),
  reply: script('reply'),
  reserve: script('reserve'),
  outboxAdd: script('outbox-add'),
  outboxLease: script('outbox-lease'),
  outboxSettle: script('outbox-settle'),
  outboxDead: script('outbox-dead'),
  deliverySave: script('delivery-save'),
  deliveryLatest: script('delivery-latest'),
  linkSave: script('link-save'),
  peopleMapSet: script('people-map-set'),
  peoplePutAudited: script('people-put-audited'),
  peopleDeleteAudited: script('people-delete-audited'),
  ticket: script('ticket'),
  ticketAdd: script('ticket-add'),
  answerTicket: script('answer-ticket'),
  channelAnswer: script('channel-answer'),
  auditAppend: script('audit-append'),
  auditChain: script('audit-chain'),
  auditTrim: script('audit-trim'),
  auditLease: script('audit-lease'),
  policyPut: script('policy-put'),
  policyDelete: script('policy-delete'),
  grantGive: script('grant-give'),
  grantUse: script('grant-use'),
  grantRevoke: script('grant-revoke'),
  delegationSet: script('delegation-set'),
  delegationEnd: script('delegation-end'),
};

export type ScriptName = keyof typeof SCRIPTS;

/** The SHA1 Redis knows a script by, as the runner sends it (for reading SLOWLOG and MONITOR). */
export function scriptSha(name: ScriptName, audit = true): string {
  return audit ? SCRIPTS[name].sha : SCRIPTS[name].quiet.sha;
}

export type Reply = string | number | null | Reply[];

export type ScriptRunner = (name: ScriptName, args: (string | number)[]) => Promise<Reply>;

/**
 * Every script gets the key prefix as ARGV[1]; keys are derived from it inside the script.
 * The prefix is also KEYS[1]: on a Cluster it routes the script to the node that owns the
 * deployment's slot (all its keys share the prefix's hash tag, and Redis 7 lets a script touch
 * undeclared keys of its declared key's slot).
 */
export function createScriptRunner(redis: RedisClient, prefix: string, audit = true): ScriptRunner {
  return async (name, args) => {
    const s = audit ? SCRIPTS[name] : SCRIPTS[name].quiet;
    try {
      return (await redis.evalsha(s.sha, 1, prefix, prefix, ...args)) as Reply;
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return (await redis.eval(s.source, 1, prefix, prefix, ...args)) as Reply;
    }
  };
}
