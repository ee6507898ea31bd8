// The served schema against the contract in docs/API.md §4, through introspection only: every
// contract type, field, argument, enum value and default is served exactly; anything added is
// optional; everything is described.
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring, parsePrincipals } from '../../src/auth/api-keys.ts';
import { createAuthenticator } from '../../src/auth/authenticate.ts';
import { DEFAULT_DOOR_POLICY } from '../../src/auth/door-policy.ts';
import {
  buildSchema,
  getIntrospectionQuery,
  type IntrospectionQuery,
  introspectionFromSchema,
} from '../../src/graphql/graphql-js.ts';
import { createGraphQLServer } from '../../src/graphql/yoga.ts';
import { type EngineSet, startEngines } from '../support/engines.ts';

type Types = IntrospectionQuery['__schema']['types'];
type FullType = Types[number];
interface TypeRef {
  kind: string;
  name?: string | null;
  ofType?: TypeRef | null;
}
interface InputValue {
  name: string;
  description?: string | null;
  type: TypeRef;
  defaultValue?: string | null;
}
interface Field {
  name: string;
  description?: string | null;
  args: readonly InputValue[];
  type: TypeRef;
}

function contractSdl(): string {
  const doc = readFileSync(new URL('../../docs/API.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## 4. GraphQL'));
  const block = /```graphql\n([\s\S]*?)```/.exec(section);
  if (!block?.[1]) throw new Error('no graphql block in docs/API.md §4');
  return block[1];
}

function ref(t: TypeRef): string {
  if (t.kind === 'NON_NULL') return `${ref(t.ofType!)}!`;
  if (t.kind === 'LIST') return `[${ref(t.ofType!)}]`;
  return t.name ?? '?';
}

function byName<T extends { name: string }>(items: readonly T[] | null | undefined): Map<string, T> {
  return new Map((items ?? []).map((i) => [i.name, i]));
}

function userTypes(types: Types): Map<string, FullType> {
  return byName(types.filter((t) => !t.name.startsWith('__')));
}

function compareArgs(
  where: string,
  want: readonly InputValue[],
  got: readonly InputValue[],
  problems: string[],
) {
  const served = byName(got);
  for (const a of want) {
    const g = served.get(a.name);
    if (!g) problems.push(`${where}(${a.name}): missing`);
    else {
      if (ref(g.type) !== ref(a.type))
        problems.push(`${where}(${a.name}): ${ref(g.type)}, contract ${ref(a.type)}`);
      if ((g.defaultValue ?? null) !== (a.defaultValue ?? null)) {
        problems.push(`${where}(${a.name}): default ${g.defaultValue}, contract ${a.defaultValue}`);
      }
    }
  }
  const contract = byName(want);
  for (const g of got) {
    if (!contract.has(g.name) && g.type.kind === 'NON_NULL' && g.defaultValue == null) {
      problems.push(`${where}(${g.name}): an added argument must be optional`);
    }
  }
}

describe('the served schema against the contract (API.md §4)', () => {
  let set: EngineSet;
  let served: Map<string, FullType>;
  let contract: Map<string, FullType>;

  beforeAll(async () => {
    set = await startEngines('memory');
    const key = 'schema-test-key-0123456789';
    const yoga = createGraphQLServer({
      engine: set.engines[0]!,
      authenticator: createAuthenticator({
        accessControl: true,
        policy: DEFAULT_DOOR_POLICY,
        keyring: createKeyring(parsePrincipals([{ id: 'reader', key, roles: ['agent'] }])),
      }),
      logger: pino({ level: 'silent' }),
    });
    const res = await yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: getIntrospectionQuery({ inputValueDeprecation: true }) }),
    });
    const body = (await res.json()) as { data: IntrospectionQuery };
    served = userTypes(body.data.__schema.types);
    contract = userTypes(introspectionFromSchema(buildSchema(contractSdl())).__schema.types);
  });

  afterAll(async () => {
    await set.close();
  });

  it('serves every contract type with its kind', () => {
    expect(contract.size).toBeGreaterThan(20);
    for (const [name, t] of contract) expect(served.get(name)?.kind, name).toBe(t.kind);
  });

  it('serves every contract field, argument and default exactly; additions are optional', () => {
    const problems: string[] = [];
    for (const [name, want] of contract) {
      const got = served.get(name);
      if (!got) continue;
      if (want.kind === 'OBJECT' && got.kind === 'OBJECT') {
        const fields = byName<Field>(got.fields);
        for (const f of want.fields as readonly Field[]) {
          const g = fields.get(f.name);
          if (!g) problems.push(`${name}.${f.name}: missing`);
          else {
            if (ref(g.type) !== ref(f.type))
              problems.push(`${name}.${f.name}: ${ref(g.type)}, contract ${ref(f.type)}`);
            compareArgs(`${name}.${f.name}`, f.args, g.args, problems);
          }
        }
      }
      if (want.kind === 'INPUT_OBJECT' && got.kind === 'INPUT_OBJECT') {
        compareArgs(name, want.inputFields, got.inputFields, problems);
      }
      if (want.kind === 'ENUM' && got.kind === 'ENUM') {
        const values = (t: typeof want) => t.enumValues.map((v) => v.name).sort();
        if (JSON.stringify(values(got)) !== JSON.stringify(values(want))) {
          problems.push(`${name}: values ${values(got)}, contract ${values(want)}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('describes every type, field, argument and enum value', () => {
    const missing: string[] = [];
    const need = (where: string, description: string | null | undefined) => {
      if (!description?.trim()) missing.push(where);
    };
    for (const [name, t] of served) {
      if (['String', 'Int', 'Float', 'Boolean', 'ID'].includes(name)) continue;
      need(name, t.description);
      if (t.kind === 'OBJECT') {
        for (const f of t.fields as readonly Field[]) {
          need(`${name}.${f.name}`, f.description);
          for (const a of f.args) need(`${name}.${f.name}(${a.name})`, a.description);
        }
      }
      if (t.kind === 'INPUT_OBJECT') for (const f of t.inputFields) need(`${name}.${f.name}`, f.description);
      if (t.kind === 'ENUM') for (const v of t.enumValues) need(`${name}.${v.name}`, v.description);
    }
    expect(missing).toEqual([]);
  });
});
